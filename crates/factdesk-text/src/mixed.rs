//! Sentences in another language than their document's: a German paragraph quoted in English
//! news, an English abstract atop a French paper, a Russian name list in Cyrillic inside
//! German text. [`sentence_languages`] finds them, so that the index can analyse each such
//! sentence in its own language.
//!
//! Running the detector over every sentence would cost an English import dearly (it reads a
//! sentence in about 75 µs), so a sentence is put to it only when something suggests it. In an
//! English document that is a sentence of twenty letters or more without one of the words
//! English cannot do without ("the", "and", "with", "which"…, in small letters or opening the
//! sentence: none of them a word of German, French, Spanish, Italian, Portuguese or Dutch) that
//! shows a sign of another language: letters mostly of another script than Latin, a word in
//! small letters with a letter beyond ASCII ("für", "été", "más"), one of the short words those
//! six languages can seldom do without ("und", "est", "los", "della", "het", "gegen", "deux";
//! the first word of the sentence counted whatever its case), or an elided word ("l'entreprise",
//! "s'exprime", "nell'ultima"). In the training range's news (HaluEval summarization items
//! 0–7999) one sentence in 46 lacks the English words, mostly name lists, scores and prices;
//! one in 45 of those shows a sign ("Edwin van der Sar", "Copa del Rey"), so one sentence in
//! 2,100 is put to the detector. The price is sentences of another language with none of
//! those signs, such as the headline "Angela Merkel regierte sechzehn Jahre lang
//! Deutschland.", which are left in the document's language: of 24 headlines written after
//! the lists (`factdesk-bench language`), 17 are found in an English article, 23 by the
//! detector reading each alone.
//!
//! In a document in another language, a sentence mostly in another script than the
//! document's, or one with two of those English words, is put to the detector. When the
//! document's own language was not told (the detector was not sure of it), every sentence
//! long enough is read. A sentence in an English document is read as [`other_than_english`]
//! reads one (its names set aside, English kept unless the detector all but rules it out);
//! others as [`detect_language`] reads a text. A sentence the detector cannot tell keeps its
//! document's language.

use factdesk_model::SentenceSpan;

use crate::language::{
    HANGUL_SYLLABLES, MIN_LETTERS_TO_DETECT, SAMPLE_BYTES, detect_language, opening,
    other_than_english, packed, packed_words,
};

/// Words of English that no German, French, Spanish, Italian, Portuguese or Dutch sentence
/// uses (words those languages share with English, such as "in", "is", "was", "had", "die",
/// "also", "over", "no", "a", Dutch "we" or German "her", are left out), and one of which
/// nearly every English sentence has.
const ENGLISH_ONLY: &[&str] = &[
    "the", "and", "to", "that", "with", "for", "from", "this", "which", "who", "their", "they",
    "been", "have", "were", "said", "it", "by", "at", "his", "are", "be", "my", "you", "she",
    "him", "our", "its", "if", "than", "then", "there", "what", "when", "would", "could", "should",
    "can", "does", "did", "not", "about", "after", "before", "into", "out", "just", "more",
    "being", "why", "how", "new", "first", "during", "against", "because", "these", "those",
    "through", "while", "where", "only", "other", "some", "such", "any", "each", "many", "much",
    "very", "your", "them", "us",
];

/// Short words of German, French, Spanish, Italian, Portuguese and Dutch, one of which nearly
/// every sentence in them has (articles, prepositions, conjunctions, forms of "be" and "have",
/// small numbers, today and tomorrow: a headline such as "Polizei nimmt zwei Verdächtige fest"
/// has few other words of its language in small letters). Some are English words too ("die",
/// "war", "hat", "son", "am"): they are read only in sentences without any word of
/// [`ENGLISH_ONLY`], where a false sign costs one reading by the detector. Left out are the
/// words English news uses in such sentences: "a", "in", "is", "on", "an", "as", "no", "so",
/// "per", "de", "la", "o", "due", "sin".
#[rustfmt::skip]
const OTHER_LATIN_ONLY: &[&str] = &[
    // German
    "der", "die", "das", "und", "ist", "nicht", "ein", "eine", "einen", "einem", "einer", "mit",
    "von", "zu", "dem", "den", "des", "im", "auf", "sich", "auch", "wird", "wurde", "sind",
    "nach", "bei", "aus", "oder", "wie", "noch", "sie", "er", "es", "dass", "werden", "hat",
    "war", "zum", "zur", "am", "vom", "ich", "nichts", "gegen", "heute", "gestern", "neue",
    "neuen", "zwei", "drei", "vier", "mehr", "nur", "schon", "sehr", "kein", "keine", "unter",
    "vor", "seit", "bis", "durch", "ohne", "um", "gibt",
    // French
    "le", "les", "du", "un", "une", "et", "est", "pas", "que", "qui", "dans", "pour", "sur",
    "avec", "ce", "il", "elle", "au", "aux", "ont", "sont", "mais", "ou", "se", "sa", "son",
    "ses", "leur", "cette", "nous", "vous", "ils", "par", "va", "contre", "sans", "chez",
    "deux", "trois", "selon", "demain", "hier", "aussi", "aucun", "aucune", "nouveau",
    "nouvelle",
    // Spanish
    "el", "los", "las", "del", "y", "en", "una", "por", "con", "para", "lo", "su", "al",
    "como", "pero", "sus", "fue", "ha", "han", "este", "esta", "ante", "tras", "sobre",
    "entre", "hasta", "desde", "dos", "tres", "nuevo", "nueva", "nuevos", "nuevas", "muy", "ya",
    // Italian
    "gli", "della", "di", "che", "e", "nel", "nella", "alla", "dei", "delle", "anche", "sono",
    "non", "contro", "tra", "fra", "dopo", "senza", "sulla", "sul", "tre", "nuovo", "nuova",
    "nuovi", "nuove",
    // Portuguese
    "os", "da", "em", "um", "uma", "com", "na", "dos", "das", "ao", "foi", "mais", "fora",
    "sem", "pelo", "pela", "dois", "novo", "nova", "novos", "novas",
    // Dutch
    "het", "een", "van", "dat", "op", "te", "zijn", "niet", "met", "voor", "ook", "maar", "om",
    "aan", "werd", "wordt", "naar", "bij", "heeft", "hij", "zij", "tegen", "twee", "drie",
    "uit", "nog", "geen", "wint",
];

/// Words that elide before a vowel in French and Italian ("l'entreprise", "s'exprime",
/// "n'exclut", "nell'ultima", "un'altra", "l'Italia"). English writes few of them so: names
/// ("D'Angelo", "L'Oreal"), where a false sign costs one reading by the detector.
const ELIDED: &[&str] = &[
    "l", "d", "s", "n", "j", "c", "m", "t", "qu", "un", "dell", "nell", "all", "sull", "dall",
    "quell", "quest",
];

/// [`OTHER_LATIN_ONLY`], each word packed (`language::packed`).
const OTHER_LATIN_ONLY_PACKED: [u64; OTHER_LATIN_ONLY.len()] = packed_words(OTHER_LATIN_ONLY);

/// [`ELIDED`], each word packed (`language::packed`).
const ELIDED_PACKED: [u64; ELIDED.len()] = packed_words(ELIDED);

/// Whether a sentence in Latin letters without English's commonest words shows a sign of
/// German, French, Spanish, Italian, Portuguese or Dutch: a word in small letters with a letter
/// beyond ASCII, a word of [`OTHER_LATIN_ONLY`] (the first word in any case), or a word of
/// [`ELIDED`] elided before another word. A part of an address ("firebox.com") or of a figure
/// ("7:56am") is no word.
fn other_latin_sign(sentence: &str) -> bool {
    let mut first = true;
    let mut rest = sentence;
    while let Some(start) = rest.find(|c: char| c.is_alphabetic()) {
        let glued =
            rest[..start].ends_with(|c: char| matches!(c, '.' | '/' | '@') || c.is_numeric());
        let from = &rest[start..];
        let end = from.find(|c: char| !c.is_alphabetic()).unwrap_or(from.len());
        let (word, after) = from.split_at(end);
        rest = after;
        let opens_lower = word.chars().next().is_some_and(char::is_lowercase);
        let counted = (first || opens_lower) && !glued;
        first = false;
        if !counted {
            continue;
        }
        if !word.is_ascii() {
            if opens_lower {
                return true;
            }
            continue;
        }
        let Some(packed) = packed(word.as_bytes()) else {
            continue;
        };
        let elided = after
            .strip_prefix(['\'', '’'])
            .is_some_and(|tail| tail.chars().next().is_some_and(char::is_alphabetic));
        if elided && ELIDED_PACKED.contains(&packed) || OTHER_LATIN_ONLY_PACKED.contains(&packed) {
            return true;
        }
    }
    false
}

/// [`ENGLISH_ONLY`], each word packed (`language::packed`).
const ENGLISH_ONLY_PACKED: [u64; ENGLISH_ONLY.len()] = packed_words(ENGLISH_ONLY);

/// How many words of [`ENGLISH_ONLY`] `sentence` has, counting up to `enough`: each written in
/// small letters, or as the sentence's first word with a capital.
fn english_words(sentence: &str, enough: usize) -> usize {
    let mut found = 0;
    let mut first = true;
    for word in sentence.split(|c: char| !c.is_alphanumeric()) {
        if word.is_empty() {
            continue;
        }
        // In small letters, or the sentence's first word with its capital: not an acronym
        // ("die US-Regierung", "die IT-Branche") nor a title ("Die Band The Rolling Stones").
        let bytes = word.as_bytes();
        let written = bytes[1..].iter().all(u8::is_ascii_lowercase)
            && (bytes[0].is_ascii_lowercase() || first && bytes[0].is_ascii_uppercase());
        first = false;
        if written && packed(bytes).is_some_and(|word| ENGLISH_ONLY_PACKED.contains(&word)) {
            found += 1;
            if found >= enough {
                break;
            }
        }
    }
    found
}

/// The scripts a sentence may be written in, as far as telling languages apart needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Script {
    Latin,
    Cyrillic,
    Arabic,
    /// Han and kana: Chinese and Japanese.
    HanKana,
    Hangul,
    Other,
}

fn script_of(c: char) -> Script {
    match c as u32 {
        0x41..=0x5A | 0x61..=0x7A | 0xC0..=0x24F | 0x1E00..=0x1EFF => Script::Latin,
        0x400..=0x52F => Script::Cyrillic,
        0x600..=0x6FF | 0x750..=0x77F | 0xFB50..=0xFDFF | 0xFE70..=0xFEFF => Script::Arabic,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF => Script::HanKana,
        0x1100..=0x11FF | 0xAC00..=0xD7AF => Script::Hangul,
        _ => Script::Other,
    }
}

/// The script most of `text`'s letters are in, and how many letters it has (a character of
/// Chinese or Japanese counting as three, as it holds a word or most of one, and a Korean
/// syllable block as three, as it holds two to four letters of Hangul).
fn main_script(text: &str) -> (Script, usize) {
    let mut counts = [0usize; 6];
    let mut letters = 0;
    for c in text.chars().filter(|c| c.is_alphabetic()) {
        let script = script_of(c);
        counts[script as usize] += 1;
        letters += if script == Script::HanKana || HANGUL_SYLLABLES.contains(&c) { 3 } else { 1 };
    }
    let scripts = [
        Script::Latin,
        Script::Cyrillic,
        Script::Arabic,
        Script::HanKana,
        Script::Hangul,
        Script::Other,
    ];
    let main = scripts.into_iter().max_by_key(|script| counts[*script as usize]);
    (main.unwrap_or(Script::Other), letters)
}

/// The sentences of `text` (its `sentences`, in order) in another language than the document's
/// `language` (an ISO 639-1 code), as (the sentence's index, its language's code), ascending.
/// `language_told` says whether `language` was detected in the text (or given); when it was not
/// (the detector was not sure, and `language` is the corpus default), every sentence long
/// enough is read.
pub fn sentence_languages(
    text: &str,
    sentences: &[SentenceSpan],
    language: &str,
    language_told: bool,
) -> Vec<(usize, &'static str)> {
    if sentences.len() < 2 && language_told {
        // One sentence: the document's language was read from it.
        return Vec::new();
    }
    let english = language == "en" && language_told;
    let document_script =
        if english { Script::Latin } else { main_script(opening(text, SAMPLE_BYTES)).0 };
    let mut found = Vec::new();
    for (index, span) in sentences.iter().enumerate() {
        let sentence = span.slice(text);
        // English first, as it costs least: most sentences show a word of it among their first.
        if english && english_words(sentence, 1) > 0 {
            continue;
        }
        let (script, letters) = main_script(sentence);
        if letters < MIN_LETTERS_TO_DETECT {
            continue;
        }
        let suspect = if english {
            script != Script::Latin || other_latin_sign(sentence)
        } else if language_told {
            script != document_script
                || (script == Script::Latin && english_words(sentence, 2) >= 2)
        } else {
            true
        };
        if !suspect {
            continue;
        }
        let detected = if english {
            other_than_english(sentence).filter(|detected| detected.code != "und")
        } else {
            detect_language(sentence)
        };
        if let Some(detected) = detected
            && detected.code != language
        {
            found.push((index, detected.code));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::segment_sentences;

    fn languages_of(text: &str, language: &str, told: bool) -> Vec<(String, &'static str)> {
        let sentences = segment_sentences(text, language);
        sentence_languages(text, &sentences, language, told)
            .into_iter()
            .map(|(index, code)| (sentences[index].slice(text).to_owned(), code))
            .collect()
    }

    #[test]
    fn a_german_paragraph_in_english_news_is_german() {
        let text = "The council met on Monday to discuss the new bridge over the river. \
                    Its members said that the work would start in the spring.\n\n\
                    Der Bürgermeister sagte, die neue Brücke werde im Frühjahr eröffnet. \
                    Die alten Brücken sollen bis zum Ende des Jahres abgerissen werden.\n\n\
                    The mayor, who spoke in German, was not available for comment.";
        let found = languages_of(text, "en", true);
        let german: Vec<&str> = found.iter().map(|(sentence, _)| sentence.as_str()).collect();
        assert_eq!(
            german,
            [
                "Der Bürgermeister sagte, die neue Brücke werde im Frühjahr eröffnet.",
                "Die alten Brücken sollen bis zum Ende des Jahres abgerissen werden."
            ]
        );
        assert!(found.iter().all(|(_, code)| *code == "de"), "{found:?}");
    }

    #[test]
    fn english_without_its_commonest_words_stays_english() {
        let text = "The squad was named on Friday.\n\n\
                    Provisional squad: Guzan, Given, Hutton, Lowton, Okore, Vlaar, Clark.\n\n\
                    Subs not used: Carson, Pennant, Barnett, Ojo.\n\n\
                    Fast facts on earthquakes and volcanoes.\n\n\
                    Perhaps most important, it feeds moral blindness.\n\n\
                    Lawyer releases training records for Tulsa deputy charged in killing.";
        assert_eq!(languages_of(text, "en", true), []);
        assert_eq!(english_words("Lawyer releases records for Tulsa deputy", 1), 1);
        assert_eq!(english_words("Die Brücke wird im Frühjahr eröffnet", 2), 0);
    }

    #[test]
    fn other_scripts_and_english_in_other_languages_are_found() {
        let russian = "Москва является столицей и крупнейшим городом России.";
        let text = format!(
            "Der Rat teilte mit, dass die neue Brücke im Frühjahr freigegeben wird. \
             Die Arbeiten beginnen im März. {russian} \
             The bridge was designed by a firm from the north of the country, which has built \
             many others."
        );
        let found = languages_of(&text, "de", true);
        let codes: Vec<&str> = found.iter().map(|(_, code)| *code).collect();
        assert_eq!(codes, ["ru", "en"], "{found:?}");
        assert_eq!(found[0].0, russian);
    }

    #[test]
    fn english_news_without_its_commonest_words_is_read_only_on_a_sign_of_another_language() {
        // Name lists, scores, prices and times: no sign, not read.
        for english in [
            "Referee: Carlos Velasco Carballo 6 (Spain) Att: 50, 092.",
            "Marine life seen swimming in unusual places.",
            "Unused subs: Gilks (Gk), Taylor, Ward, Kightly.",
            "Sound Asleep Pillow, £17.99 firebox.com.",
            "Group 2, 7:56am: Larry Mize, Bernhard Langer.",
            "Rock 'n' roll hall inducts Green Day.",
        ] {
            assert!(!other_latin_sign(english), "{english}");
        }
        // A word of another language (the first word in any case), a small word with an
        // accent: read.
        for other in [
            "Edwin van der Sar, Patrice Evra, Wayne Rooney.",
            "Die Polizei nahm Verdächtige fest.",
            "Zugspitze: höchster Berg Deutschlands.",
            "Polizei nimmt zwei Verdächtige fest.",
            "Frankreich gewinnt gegen Deutschland klar.",
            "Scholz trifft Macron heute in Paris.",
            "Ajax wint ruim tegen PSV in Eindhoven.",
            "Benfica vence o Porto fora de casa.",
            "Messi marca tres goles ante Getafe.",
        ] {
            assert!(other_latin_sign(other), "{other}");
        }
        // An elided word before a word in small letters, and nothing else: read.
        for elided in [
            "L'entreprise supprimera 1 200 emplois.",
            "Macron s'exprime demain soir.",
            "Macron n'exclut aucune option.",
            "Roma vince la Lazio nell'ultima giornata.",
            "Terremoto scuote l'Italia centrale.",
        ] {
            assert!(other_latin_sign(elided), "{elided}");
            let unelided = elided.replace(['\'', '’'], " ");
            if !elided.contains("demain") && !elided.contains("aucune") {
                assert!(!other_latin_sign(&unelided), "{unelided}");
            }
        }
        // Each elided word alone (those that are words of the lists too, such as "un", aside).
        for word in ELIDED {
            let elided = format!("Tim {word}'abri Rocks.");
            assert!(other_latin_sign(&elided), "{elided}");
            let unelided = format!("Tim {word} abri Rocks.");
            assert_eq!(other_latin_sign(&unelided), OTHER_LATIN_ONLY.contains(word), "{unelided}");
        }
        // In English ("she'd", "players' kit", "rock 'n' roll") an apostrophe is no elision.
        assert!(!other_latin_sign("Mayor Ward said she'd visit the players' homes."));
        // In an English document the screen leaves unread what the detector would misread:
        // this price line, read, is taken for Italian.
        let price = "Skinny belt, £82.50, elliotrhodes.com.";
        assert_eq!(other_than_english(price).map(|language| language.code), Some("it"));
        let text = format!(
            "The council met on Monday to discuss the new bridge over the river.\n\n\
             Die Polizei nahm zwei Verdächtige wegen Diebstahls fest.\n\n{price}"
        );
        let found = languages_of(&text, "en", true);
        let codes: Vec<&str> = found.iter().map(|(_, code)| *code).collect();
        assert_eq!(codes, ["de"], "{found:?}");
    }

    #[test]
    fn english_words_are_written_in_small_letters_or_open_the_sentence() {
        assert_eq!(english_words("The bridge opens with a ceremony", 3), 2);
        // An acronym or a title in a German sentence is no English word.
        for german in [
            "Die US-Regierung verhängte neue Sanktionen gegen Russland.",
            "Die IT-Branche wächst stark.",
            "Die Band The Rolling Stones spielte gestern in Berlin.",
        ] {
            assert_eq!(english_words(german, 1), 0, "{german}");
            let text = format!("The band played in Berlin on Monday night.\n\n{german}");
            let found = languages_of(&text, "en", true);
            assert_eq!(found.iter().map(|(_, code)| *code).collect::<Vec<_>>(), ["de"], "{german}");
        }
    }

    #[test]
    fn a_korean_syllable_block_counts_three_letters_and_a_jamo_one() {
        assert_eq!(main_script("서울은"), (Script::Hangul, 9));
        // Conjoining jamo, the letters a block is made of.
        assert_eq!(main_script("\u{1109}\u{1165}\u{110B}\u{116E}\u{11AF}"), (Script::Hangul, 5));
    }

    #[test]
    fn a_korean_sentence_in_english_news_is_korean() {
        let text = "The government announced a new economic policy on Monday.\n\n\
                    정부는 어제 새로운 경제 정책을 발표했다.\n\n\
                    The plan was welcomed by the markets, which rose by two percent.";
        let found = languages_of(text, "en", true);
        let codes: Vec<&str> = found.iter().map(|(_, code)| *code).collect();
        assert_eq!(codes, ["ko"], "{found:?}");
        // And in a German document, where the detector reads it as it reads a text.
        let text = "Die Regierung stellte am Montag eine neue Wirtschaftspolitik vor.\n\n\
                    정부는 어제 새로운 경제 정책을 발표했다.\n\n\
                    Die Märkte reagierten positiv und stiegen um zwei Prozent.";
        let found = languages_of(text, "de", true);
        let codes: Vec<&str> = found.iter().map(|(_, code)| *code).collect();
        assert_eq!(codes, ["ko"], "{found:?}");
    }

    #[test]
    fn a_document_whose_language_was_not_told_is_read_sentence_by_sentence() {
        let text = "Le maire a déclaré que le nouveau pont sera ouvert au printemps prochain. \
                    El volcán entró en erupción el domingo por la mañana, según las autoridades.";
        let found = languages_of(text, "en", false);
        let codes: Vec<&str> = found.iter().map(|(_, code)| *code).collect();
        assert_eq!(codes, ["fr", "es"], "{found:?}");
        // Told, one sentence is its document's language.
        let one = "Le maire a déclaré que le nouveau pont sera ouvert au printemps prochain.";
        assert_eq!(languages_of(one, "fr", true), []);
    }
}
