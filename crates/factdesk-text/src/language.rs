//! Which language a short text is in, for one decision: may a model that reads only English
//! judge it? A statistical detector (lingua's n-gram models for twelve languages: English,
//! German, French, Spanish, Italian, Portuguese, Dutch, Russian, Arabic, Chinese, Japanese,
//! Korean) reads the text's ordinary words.
//!
//! Names and figures say little of a sentence's language and much of its subject: English news
//! about "Björn Ulvaeus" or "Sankt Ulrich bei Steyr" reads as Swedish or German when every word
//! is counted. So only words that open with a letter other than a capital are read, and a text
//! with fewer than two of them, or fewer than six letters in them, is not judged (taken as
//! English), unless it is mostly in a script without spaces (Chinese, Japanese), which is read
//! whole. A text is another language only when the detector gives English less than
//! [`ENGLISH_BELOW`] of its confidence.
//!
//! The threshold was chosen on the training range (HaluEval summary sentences, QA questions
//! with their answers, the contrast set's dev claims) and on short factual sentences in other
//! languages (`factdesk-bench language`, which prints the figures: on the training range 1 of
//! 61,280 English claims and 12 of 231,402 English evidence sentences are taken for another
//! language; 73 of 81 sentences in eleven other languages are recognised, the misses short
//! sentences made mostly of names, such as "Lisboa é a capital de Portugal.").
//!
//! [`detect_language`] answers the other question, which language a document or claim is in
//! (for its sentence segmentation and its search analyzer): the same detector over the text's
//! first [`SAMPLE_BYTES`], no answer for text too short to tell ([`MIN_LETTERS_TO_DETECT`]) or
//! when no language has [`SURE_AT`] of the detector's confidence, where the caller uses the
//! corpus default. Long English prose is recognised by its commonest words without the
//! detector, so that an English import pays almost nothing for it.
//!
//! The detector is built once and its models load on first use (about 40 MB resident).

use std::sync::OnceLock;

use lingua::{Language, LanguageDetector, LanguageDetectorBuilder};

/// Below this share of the detector's confidence in English, a text is another language.
pub const ENGLISH_BELOW: f64 = 0.075;

/// A language a text was found to be in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DetectedLanguage {
    /// ISO 639-1 code: `de`, `zh`.
    pub code: &'static str,
    /// English name: `German`, `Chinese`.
    pub name: &'static str,
}

fn detector() -> &'static LanguageDetector {
    static DETECTOR: OnceLock<LanguageDetector> = OnceLock::new();
    DETECTOR.get_or_init(|| LanguageDetectorBuilder::from_all_languages().build())
}

/// Scripts written without spaces between words: a text in them is read whole.
fn unspaced_script(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF    // Hiragana, Katakana
        | 0x3400..=0x4DBF  // CJK extension A
        | 0x4E00..=0x9FFF  // CJK unified ideographs
        | 0xF900..=0xFAFF) // CJK compatibility ideographs
}

/// Letters of the scripts the twelve languages are written in: Latin, Cyrillic, Arabic, Han,
/// kana, Hangul.
fn known_script(c: char) -> bool {
    c.is_ascii_alphabetic()
        || unspaced_script(c)
        || matches!(c as u32,
            0x00C0..=0x024F      // Latin-1 and Latin Extended
            | 0x1E00..=0x1EFF    // Latin Extended Additional
            | 0x0400..=0x052F    // Cyrillic
            | 0x0600..=0x06FF    // Arabic
            | 0x0750..=0x077F    // Arabic Supplement
            | 0xFB50..=0xFDFF    // Arabic presentation forms A
            | 0xFE70..=0xFEFF    // Arabic presentation forms B
            | 0x1100..=0x11FF    // Hangul Jamo
            | 0xAC00..=0xD7AF) // Hangul syllables
}

/// The words that tell a language: those that open with a letter that is not a capital
/// (names, figures, prices and quotations are set aside).
fn ordinary_words(text: &str) -> Vec<&str> {
    text.split_whitespace()
        .filter(|word| word.chars().next().is_some_and(|c| c.is_alphabetic() && !c.is_uppercase()))
        .collect()
}

/// Fewer letters than this in a text's ordinary words, and it is not judged.
const MIN_LETTERS: usize = 6;

/// The language `text` is in, when it is confidently not English; none for English, for text
/// too short or too full of names to tell, and for text with no letters.
pub fn other_than_english(text: &str) -> Option<DetectedLanguage> {
    let letters = text.chars().filter(|c| c.is_alphabetic()).count();
    let unspaced = text.chars().filter(|c| unspaced_script(*c)).count();
    // Chinese or Japanese is read whole; an English sentence quoting a Japanese title is not.
    let read = if letters > 0 && unspaced * 2 >= letters {
        text.to_owned()
    } else {
        let words = ordinary_words(text);
        let letters: usize =
            words.iter().map(|word| word.chars().filter(|c| c.is_alphabetic()).count()).sum();
        if words.len() < 2 || letters < MIN_LETTERS {
            return None;
        }
        words.join(" ")
    };
    // Letters of scripts none of the twelve languages is written in (Greek, Hebrew,
    // Devanagari, Thai…): no model fits them, yet the text is plainly not English.
    let letters_read: Vec<char> = read.chars().filter(|c| c.is_alphabetic()).collect();
    let foreign_script = letters_read.iter().filter(|c| !known_script(**c)).count();
    if letters_read.len() >= MIN_LETTERS && foreign_script * 2 > letters_read.len() {
        return Some(DetectedLanguage { code: "und", name: "a language it does not recognise" });
    }
    let confidences = detector().compute_language_confidence_values(read.as_str());
    let english = confidences
        .iter()
        .find(|(language, _)| *language == Language::English)
        .map_or(0.0, |(_, confidence)| *confidence);
    let (top, confidence) = *confidences.first()?;
    if top == Language::English || confidence <= 0.0 || english >= ENGLISH_BELOW {
        return None;
    }
    Some(DetectedLanguage { code: code(top), name: name(top) })
}

/// The part of a text [`detect_language`] reads, in bytes: a document's opening paragraphs.
pub const SAMPLE_BYTES: usize = 1500;

/// Fewer letters than this (a character of Chinese or Japanese, or a Korean syllable block,
/// counts as three) and a text's language is not told.
pub const MIN_LETTERS_TO_DETECT: usize = 20;

/// Korean syllable blocks, each two to four letters of Hangul.
pub(crate) const HANGUL_SYLLABLES: std::ops::RangeInclusive<char> = '\u{AC00}'..='\u{D7AF}';

/// The least share of the detector's confidence its top language must have to be taken.
pub const SURE_AT: f64 = 0.5;

/// English words common enough that long English prose is recognised by them alone.
const ENGLISH_COMMON: &[&str] = &[
    "the", "of", "and", "to", "in", "is", "was", "for", "that", "on", "with", "as", "by", "it",
    "at", "from", "he", "his", "are", "be", "has", "have", "had", "were", "said", "this", "which",
    "who", "their", "they", "will", "been", "an", "not", "but",
];

/// [`ENGLISH_COMMON`], each word [`packed`].
const ENGLISH_COMMON_PACKED: [u64; ENGLISH_COMMON.len()] = packed_words(ENGLISH_COMMON);

/// An ASCII word of at most eight bytes, lower-cased, as one number (its bytes in order, zeros
/// after them), so that looking a word up among a few dozen costs a few dozen integer
/// comparisons; none for a longer word or one with a byte beyond ASCII.
pub(crate) const fn packed(word: &[u8]) -> Option<u64> {
    if word.len() > 8 {
        return None;
    }
    let mut number = 0u64;
    let mut index = 0;
    while index < word.len() {
        if !word[index].is_ascii() {
            return None;
        }
        number |= (word[index].to_ascii_lowercase() as u64) << (8 * index);
        index += 1;
    }
    Some(number)
}

/// Each of `words` [`packed`]; a word that cannot be is an error where the list is compiled.
pub(crate) const fn packed_words<const N: usize>(words: &[&str]) -> [u64; N] {
    assert!(words.len() == N, "the list and its packed form differ in length");
    let mut numbers = [0u64; N];
    let mut index = 0;
    while index < N {
        numbers[index] = match packed(words[index].as_bytes()) {
            Some(number) => number,
            None => panic!("a listed word is not ASCII or is longer than eight bytes"),
        };
        index += 1;
    }
    numbers
}

/// The part of a text [`english_by_common_words`] reads, in bytes: about 170 words. In the
/// training range's news articles (HaluEval summarization items 0–7999) the openings of about
/// 20 of 8,000 fail that test and are read by the detector, which takes a millisecond or two
/// for each (about 45 with the first 1,500 bytes, a fifth of the words and capitals counted, as
/// before).
const COMMON_WORDS_SAMPLE_BYTES: usize = 1000;

/// The first `bytes` of `text` (fewer where a character would be cut).
pub(crate) fn opening(text: &str, bytes: usize) -> &str {
    let mut cut = text.len().min(bytes);
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    &text[..cut]
}

/// Words a text needs for [`english_by_common_words`] to judge it.
const COMMON_WORDS_SAMPLE: usize = 30;

/// Whether `text` (a sample of at least [`COMMON_WORDS_SAMPLE`] words) is plainly English:
/// "the" among its words, a sixth of them among the commonest English words written in small
/// letters (a title such as "The Voice of Holland" in Dutch prose does not count), and no more
/// than one word in twenty with letters beyond ASCII (a name such as "Pérez" in English news;
/// prose in a language with accents has far more). German, French, Spanish and Dutch prose
/// share "in", "is", "on", "an", "was" or "had" with it, but rarely "the".
fn english_by_common_words(text: &str) -> bool {
    let mut words = 0usize;
    let mut common = 0usize;
    let mut beyond_ascii = 0usize;
    let mut has_the = false;
    const THE: Option<u64> = packed(b"the");
    for word in text.split(|c: char| !c.is_alphabetic()).filter(|w| !w.is_empty()) {
        words += 1;
        if !word.is_ascii() {
            beyond_ascii += 1;
            continue;
        }
        // In small letters only: an English title in other prose ("The Voice of Holland") is
        // capitalised.
        if word.bytes().all(|b| b.is_ascii_lowercase())
            && let Some(word) = packed(word.as_bytes())
            && ENGLISH_COMMON_PACKED.contains(&word)
        {
            common += 1;
            has_the |= Some(word) == THE;
        }
    }
    words >= COMMON_WORDS_SAMPLE && has_the && common * 6 >= words && beyond_ascii * 20 <= words
}

/// The language `text` is in, when it is long enough to tell and the detector is sure; none
/// otherwise (the caller then uses its default). Reads the first [`SAMPLE_BYTES`] of it, and
/// takes plain English prose for English by the commonest words of its first
/// [`COMMON_WORDS_SAMPLE_BYTES`].
pub fn detect_language(text: &str) -> Option<DetectedLanguage> {
    if english_by_common_words(opening(text, COMMON_WORDS_SAMPLE_BYTES)) {
        return Some(DetectedLanguage { code: "en", name: "English" });
    }
    let sample = opening(text, SAMPLE_BYTES);
    let (mut letters, mut blocks, mut foreign) = (0usize, 0usize, 0usize);
    for c in sample.chars().filter(|c| c.is_alphabetic()) {
        letters += 1;
        blocks += usize::from(unspaced_script(c) || HANGUL_SYLLABLES.contains(&c));
        foreign += usize::from(!known_script(c));
    }
    if letters + 2 * blocks < MIN_LETTERS_TO_DETECT || foreign * 2 > letters {
        // Too short, or in a script none of the twelve languages is written in.
        return None;
    }
    let confidences = detector().compute_language_confidence_values(sample);
    let (top, confidence) = *confidences.first()?;
    (confidence >= SURE_AT).then(|| DetectedLanguage { code: code(top), name: name(top) })
}

/// The English name of a language code [`detect_language`] gives (`de` → German); none for
/// other codes.
pub fn language_name(code: &str) -> Option<&'static str> {
    ALL.iter().find(|language| self::code(**language) == code).map(|language| name(*language))
}

/// The twelve languages the detector knows.
const ALL: [Language; 12] = [
    Language::Arabic,
    Language::Chinese,
    Language::Dutch,
    Language::English,
    Language::French,
    Language::German,
    Language::Italian,
    Language::Japanese,
    Language::Korean,
    Language::Portuguese,
    Language::Russian,
    Language::Spanish,
];

fn code(language: Language) -> &'static str {
    match language {
        Language::Arabic => "ar",
        Language::Chinese => "zh",
        Language::Dutch => "nl",
        Language::English => "en",
        Language::French => "fr",
        Language::German => "de",
        Language::Italian => "it",
        Language::Japanese => "ja",
        Language::Korean => "ko",
        Language::Portuguese => "pt",
        Language::Russian => "ru",
        Language::Spanish => "es",
    }
}

fn name(language: Language) -> &'static str {
    match language {
        Language::Arabic => "Arabic",
        Language::Chinese => "Chinese",
        Language::Dutch => "Dutch",
        Language::English => "English",
        Language::French => "French",
        Language::German => "German",
        Language::Italian => "Italian",
        Language::Japanese => "Japanese",
        Language::Korean => "Korean",
        Language::Portuguese => "Portuguese",
        Language::Russian => "Russian",
        Language::Spanish => "Spanish",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code_of(text: &str) -> Option<&'static str> {
        other_than_english(text).map(|language| language.code)
    }

    #[test]
    fn only_english_prose_is_english_by_its_common_words() {
        let dutch = "De band The Rolling Stones speelde zaterdag in het stadion van Amsterdam. \
                     Het concert was al maanden uitverkocht en de fans stonden urenlang in de rij. \
                     Volgens de organisatie waren er meer dan vijftigduizend bezoekers, een record \
                     voor het stadion. De zanger zei na afloop dat hij de stad een van de mooiste \
                     van Europa vindt en dat de band volgend jaar terugkomt. Het was de eerste \
                     keer in tien jaar dat de groep in Nederland optrad.";
        let german = "Die Band The Rolling Stones spielte am Samstag in Berlin vor ausverkauftem \
                      Haus. Das Konzert war seit Monaten ausverkauft, und die Fans standen stundenlang \
                      an. Nach Angaben des Veranstalters kamen mehr als fünfzigtausend Besucher, ein \
                      Rekord für das Stadion. Der Sänger sagte, er will im nächsten Jahr wiederkommen.";
        let english = "When the singer went missing from the music scene, there was tons of \
                       speculation. Was she pregnant? In rehab? Going through a split from her \
                       husband? Focus on the mystery intensified in December after a fan account \
                       posted a direct message from her, which said that she had been ill.";
        assert!(!english_by_common_words(dutch));
        assert!(!english_by_common_words(german));
        // A title's capitalised words do not count: with them this would be English (a
        // quarter of its words), without them a little under a sixth.
        let title = "The Voice of Holland is weer terug op televisie. The Voice of Holland was \
                     jarenlang het best bekeken programma van RTL, maar The Voice of Holland \
                     stopte na een schandaal. Nu komt The Voice of Holland terug met nieuwe \
                     coaches en een nieuwe presentator, onder de slogan 'the show goes on'. De \
                     eerste aflevering van The Voice of Holland is in maart te zien, zegt de \
                     omroep.";
        assert!(!english_by_common_words(title));
        assert_eq!(detect_language(title).map(|language| language.code), Some("nl"));
        assert!(english_by_common_words(english));
        assert_eq!(detect_language(dutch).map(|language| language.code), Some("nl"));
        assert_eq!(detect_language(german).map(|language| language.code), Some("de"));
    }

    #[test]
    fn packed_words_compare_as_their_lower_case() {
        assert_eq!(packed(b"The"), packed(b"the"));
        assert_ne!(packed(b"th"), packed(b"the"));
        assert_ne!(packed(b"then"), packed(b"the"));
        assert_eq!(packed(b"abcdefgh").map(|n| n.to_le_bytes()), Some(*b"abcdefgh"));
        assert_eq!(packed(b"abcdefghi"), None);
        assert_eq!(packed("für".as_bytes()), None);
        assert!(ENGLISH_COMMON_PACKED.contains(&packed(b"Which").unwrap()));
    }

    #[test]
    fn other_languages_are_recognised() {
        let cases = [
            ("Die Zugspitze ist 3962 Meter hoch.", "de"),
            ("La tour Eiffel mesurait 312 mètres de hauteur.", "fr"),
            ("El volcán entró en erupción el domingo por la mañana.", "es"),
            ("Il prezzo del gas è aumentato del 30 per cento.", "it"),
            ("Москва является столицей России.", "ru"),
            ("يبلغ ارتفاع برج خليفة 828 مترا.", "ar"),
            ("巴黎是法国的首都。", "zh"),
            ("富士山の高さは3776メートルです。", "ja"),
        ];
        for (text, expected) in cases {
            assert_eq!(code_of(text), Some(expected), "{text}");
        }
        let german = other_than_english("Die Zugspitze ist 3962 Meter hoch.").unwrap();
        assert_eq!(german.name, "German");
    }

    #[test]
    fn english_full_of_foreign_names_stays_english() {
        for text in [
            "Björn Ulvaeus was a part of a Swedish pop group, formed in Stockholm in 1972.",
            "Die Meistersinger von Nürnberg and Iphigénie en Aulide are both musicals.",
            "Casado con hijos aired on May 2, 2006 in Chile.",
            "Márcio Borges was from São Paulo.",
            "The Eiffel Tower is 330 metres tall.",
            "Obama won in 2008.",
            "School Rumble (スクールランブル , Sukūru Ranburu ) is a Japanese manga series.",
        ] {
            assert_eq!(code_of(text), None, "{text}");
        }
    }

    fn detected(text: &str) -> Option<&'static str> {
        detect_language(text).map(|language| language.code)
    }

    #[test]
    fn documents_and_claims_get_their_language() {
        let cases = [
            ("Die Zugspitze ist mit 2962 Metern der höchste Berg Deutschlands.", "de"),
            ("La tour Eiffel mesurait 312 mètres de hauteur lors de son inauguration.", "fr"),
            ("El volcán entró en erupción el domingo por la mañana, según las autoridades.", "es"),
            ("Москва является столицей и крупнейшим городом России.", "ru"),
            ("يبلغ ارتفاع برج خليفة في دبي ثمانمائة وثمانية وعشرين مترا.", "ar"),
            ("埃菲尔铁塔位于法国巴黎，建于1889年。", "zh"),
            ("富士山の高さは3776メートルで、日本で一番高い山です。", "ja"),
            ("The Eiffel Tower in Paris was completed in 1889 for the World's Fair.", "en"),
        ];
        for (text, expected) in cases {
            assert_eq!(detected(text), Some(expected), "{text}");
        }
        // Long English prose is known by its common words, without the detector.
        let prose = "The council said that the new bridge, which was built by a firm from the \
                     north of the country, would be opened to traffic in the spring, and that \
                     the old one is to be taken down by the end of the year.";
        assert!(english_by_common_words(prose));
        assert_eq!(detected(prose), Some("en"));
        let news = "José Mourinho said that the club, which has won the league twice in the \
                    last five years, will not sell any of its players to the rivals from the \
                    north before the end of the season.";
        assert!(english_by_common_words(news), "one accented name in English news");
        let french = "Le maire a déclaré que le nouveau pont, qui a été construit par une \
                      entreprise du nord du pays, sera ouvert à la circulation au printemps et \
                      que l'ancien sera démoli avant la fin de l'année.";
        assert!(!english_by_common_words(french));
        assert_eq!(detected(french), Some("fr"));
        let german = "Der Rat teilte mit, dass die neue Brücke, die von einer Firma aus dem \
                      Norden des Landes gebaut wurde, im Frühjahr für den Verkehr freigegeben \
                      wird und die alte bis zum Ende des Jahres abgerissen werden soll.";
        assert!(!english_by_common_words(german));
        assert_eq!(detected(german), Some("de"));
        assert_eq!(language_name("de"), Some("German"));
        assert_eq!(language_name("xx"), None);
    }

    #[test]
    fn short_texts_and_unknown_scripts_get_no_language() {
        for text in [
            "",
            "42",
            "Paris?",
            "Berg",
            "Zugspitze 2962",
            "巴黎",
            "Η Ακρόπολη βρίσκεται στην Αθήνα.",
        ] {
            assert_eq!(detected(text), None, "{text:?}");
        }
    }

    #[test]
    fn too_little_to_tell_is_not_judged() {
        // A script none of the twelve is written in is not English either.
        for text in ["Η Ακρόπολη βρίσκεται στην Αθήνα.", "ירושלים היא עיר עתיקה מאוד."]
        {
            assert_eq!(code_of(text), Some("und"), "{text}");
        }
        for text in [
            "",
            "   ",
            "42",
            "Buenos Aires",
            "Paris?",
            "¿?",
            "Zugspitze 2962",
            "Fromage, £2.29 on ios.",
        ] {
            assert_eq!(code_of(text), None, "{text:?}");
        }
    }
}
