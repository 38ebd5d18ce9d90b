//! The text analyzer of the sentence field: the tokens of tantivy's `en_stem` (words, long
//! words dropped, lower case, English Snowball stems), made in one pass that remembers each
//! word's stem, and Chinese, Japanese and Korean text cut into overlapping pairs of characters.
//!
//! tantivy's `en_stem` is a chain of four stages, each touching every token again: split into
//! words, drop long ones, lower-case, stem. A news corpus has millions of words but only tens
//! of thousands of distinct ones, and the Snowball stemmer works each word out from scratch.
//! Here one tokenizer finds a word and looks it up as written in a cache of stems, so a word
//! seen before is neither lower-cased nor stemmed again; only a new word goes through the
//! stages. The cache is per tokenizer (tantivy clones the registered analyzer for every
//! segment writer and every query), bounded, and emptied when full, so a clone never grows past
//! [`MAX_CACHED_WORDS`] words.
//!
//! Chinese and Japanese put no spaces between words, so `en_stem` made a whole clause one
//! token and no word in it could be found ("巴黎" in "埃菲尔铁塔位于巴黎"). A run of Han,
//! kana or Hangul characters is instead given as its overlapping pairs ("埃菲", "菲尔", "尔铁",
//! …; a lone character as itself), at consecutive positions: a query is cut the same way and
//! its pairs searched as a phrase, so any word of two characters or more is found where it is
//! written, with no dictionary to keep (the bigram indexing long used for CJK search). Text
//! without those characters gets exactly `en_stem`'s tokens.
//!
//! Other languages ([`for_language`]): the same words and CJK pairs, lower-cased, then
//! tantivy's Snowball stemmer for the languages it has one for (German, French, Spanish,
//! Russian, Arabic… eighteen in all), and no stemming for the rest (Chinese, Japanese and
//! Korean among them, whose pairs need none). The index's field is registered with the English
//! analyzer; a sentence in another language is indexed with its tokens made here, and a query
//! parsed with its language's analyzer in the field's place.

use std::hash::BuildHasher;

use foldhash::fast::RandomState;
use hashbrown::HashTable;
use tantivy::tokenizer::{Language, Stemmer, TextAnalyzer, Token, TokenStream, Tokenizer};

/// The name the analyzer is registered under, which the schema records: an index built when
/// CJK text was one token per clause (under tantivy's name `en_stem`), or when every sentence
/// was analysed as English (`factdesk_words`), has another schema, and is rebuilt on open.
pub(crate) const NAME: &str = "factdesk_languages";

/// tantivy's own analyzer, which gives the same tokens for text without CJK characters.
pub(crate) const TANTIVY_EN_STEM: &str = "en_stem";

/// Words of this many bytes or more are dropped (tantivy's `en_stem` limit).
const MAX_WORD_BYTES: usize = 40;

/// ASCII words this short are their own stems, lower-cased: they skip the cache.
const SHORT_WORD_BYTES: usize = 2;

/// Distinct words one tokenizer remembers before it starts again.
const MAX_CACHED_WORDS: usize = 1 << 17;

/// The sentence field's analyzer.
pub(crate) fn english() -> TextAnalyzer {
    TextAnalyzer::from(EnglishTokenizer::default())
}

/// Whether `language` (an ISO 639-1 code) is analysed by [`english`].
pub(crate) fn is_english(language: &str) -> bool {
    language == "en"
}

/// The Snowball stemmer tantivy has for `language` (an ISO 639-1 code), if any.
pub(crate) fn stemmer_language(language: &str) -> Option<Language> {
    Some(match language {
        "ar" => Language::Arabic,
        "da" => Language::Danish,
        "nl" => Language::Dutch,
        "en" => Language::English,
        "fi" => Language::Finnish,
        "fr" => Language::French,
        "de" => Language::German,
        "el" => Language::Greek,
        "hu" => Language::Hungarian,
        "it" => Language::Italian,
        "no" | "nb" | "nn" => Language::Norwegian,
        "pt" => Language::Portuguese,
        "ro" => Language::Romanian,
        "ru" => Language::Russian,
        "es" => Language::Spanish,
        "sv" => Language::Swedish,
        "ta" => Language::Tamil,
        "tr" => Language::Turkish,
        _ => return None,
    })
}

/// The analyzer of text in `language` (an ISO 639-1 code): [`english`] for English; words and
/// CJK pairs lower-cased and stemmed by tantivy's stemmer where it has the language; only
/// lower-cased otherwise.
pub(crate) fn for_language(language: &str) -> TextAnalyzer {
    if is_english(language) {
        return english();
    }
    let words = EnglishTokenizer { lower_case_only: true, ..EnglishTokenizer::default() };
    match stemmer_language(language) {
        Some(stemmer) => TextAnalyzer::builder(words).filter(Stemmer::new(stemmer)).build(),
        None => TextAnalyzer::from(words),
    }
}

/// Words as tantivy's `SimpleTokenizer` finds them (runs of alphanumeric characters), those of
/// [`MAX_WORD_BYTES`] or more dropped, the rest lower-cased as tantivy's `LowerCaser` does and
/// stemmed by English Snowball.
#[derive(Clone, Default)]
pub(crate) struct EnglishTokenizer {
    token: Token,
    stems: Stems,
    /// Lower-case words without stemming them (for the other languages' analyzers).
    lower_case_only: bool,
}

impl Tokenizer for EnglishTokenizer {
    type TokenStream<'a> = EnglishTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> EnglishTokenStream<'a> {
        self.token.reset();
        EnglishTokenStream {
            text,
            next: 0,
            word_end: 0,
            token: &mut self.token,
            stems: &mut self.stems,
            lower_case_only: self.lower_case_only,
        }
    }
}

pub(crate) struct EnglishTokenStream<'a> {
    text: &'a str,
    /// Where the search for the next word starts, in bytes.
    next: usize,
    /// The end of the word being cut into pieces (CJK runs and the words between them), when
    /// `next` is inside one.
    word_end: usize,
    token: &'a mut Token,
    stems: &'a mut Stems,
    lower_case_only: bool,
}

impl TokenStream for EnglishTokenStream<'_> {
    fn advance(&mut self) -> bool {
        loop {
            // Every word counts for positions, the dropped long ones too (as in `en_stem`).
            self.token.position = self.token.position.wrapping_add(1);
            let (from, to, cjk) = if self.next < self.word_end {
                // The rest of a word holding CJK characters.
                self.piece()
            } else {
                let Some((from, to)) = next_word(self.text, &mut self.next) else {
                    return false;
                };
                let word = &self.text.as_bytes()[from..to];
                if word.is_ascii() || !has_cjk(&self.text[from..to]) {
                    (from, to, false)
                } else {
                    self.word_end = to;
                    self.next = from;
                    self.piece()
                }
            };
            if cjk {
                // A pair of characters (or a lone one), as written.
                self.token.offset_from = from;
                self.token.offset_to = to;
                self.token.text.clear();
                self.token.text.push_str(&self.text[from..to]);
                return true;
            }
            if to - from >= MAX_WORD_BYTES {
                continue;
            }
            self.token.offset_from = from;
            self.token.offset_to = to;
            let word = &self.text[from..to];
            self.token.text.clear();
            if self.lower_case_only {
                lower_case(word, &mut self.token.text);
            } else if word.len() <= SHORT_WORD_BYTES && word.is_ascii() {
                // English Snowball leaves words of one or two letters as they are.
                self.token.text.push_str(word);
                self.token.text.make_ascii_lowercase();
            } else {
                self.token.text.push_str(self.stems.stem(word));
            }
            return true;
        }
    }

    fn token(&self) -> &Token {
        self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        self.token
    }
}

impl EnglishTokenStream<'_> {
    /// The next piece of the word that ends at `word_end`, from `next`, and whether it is
    /// CJK: a pair of CJK characters (the second starting the next pair, if the run goes on),
    /// a CJK character alone in its run, or the letters and digits up to the next CJK
    /// character.
    #[cold]
    #[inline(never)]
    fn piece(&mut self) -> (usize, usize, bool) {
        let rest = &self.text[self.next..self.word_end];
        let mut chars = rest.char_indices();
        let (_, first) = chars.next().expect("a piece starts before the word ends");
        let from = self.next;
        if is_cjk(first) {
            let second = first.len_utf8();
            match rest[second..].chars().next() {
                Some(next) if is_cjk(next) => {
                    let end = from + second + next.len_utf8();
                    // The pair's second character starts the next pair, if the run goes on.
                    let goes_on = self.text[end..self.word_end].chars().next().is_some_and(is_cjk);
                    self.next = if goes_on { from + second } else { end };
                    (from, end, true)
                }
                _ => {
                    self.next = from + second;
                    (from, from + second, true)
                }
            }
        } else {
            let end = chars.find(|(_, c)| is_cjk(*c)).map_or(rest.len(), |(at, _)| at);
            self.next = from + end;
            (from, from + end, false)
        }
    }
}

#[cold]
#[inline(never)]
fn has_cjk(word: &str) -> bool {
    word.chars().any(is_cjk)
}

/// Whether `c` is written without spaces between words: a Han ideograph, kana, or Hangul.
pub(crate) fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x1100..=0x11FF // Hangul Jamo
        | 0x3005..=0x3007 // iteration and zero marks
        | 0x3040..=0x30FF // Hiragana, Katakana
        | 0x3130..=0x318F // Hangul compatibility Jamo
        | 0x31F0..=0x31FF // Katakana phonetic extensions
        | 0x3400..=0x4DBF // CJK extension A
        | 0x4E00..=0x9FFF // CJK unified ideographs
        | 0xAC00..=0xD7AF // Hangul syllables
        | 0xF900..=0xFAFF // CJK compatibility ideographs
        | 0xFF66..=0xFF9F // half-width Katakana
        | 0x20000..=0x3134F // CJK extensions B to G
    )
}

/// The next run of alphanumeric characters at or after byte `*next`, as a byte range; `*next`
/// moves past it.
fn next_word(text: &str, next: &mut usize) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut at = *next;
    let start = loop {
        let (alphanumeric, width) = char_at(text, bytes, at)?;
        if alphanumeric {
            break at;
        }
        at += width;
    };
    at = start;
    while let Some((alphanumeric, width)) = char_at(text, bytes, at) {
        if !alphanumeric {
            break;
        }
        at += width;
    }
    *next = at;
    Some((start, at))
}

/// Whether the character at byte `at` (a character boundary) is alphanumeric, and its width.
#[inline]
fn char_at(text: &str, bytes: &[u8], at: usize) -> Option<(bool, usize)> {
    let &byte = bytes.get(at)?;
    if byte.is_ascii() {
        return Some((byte.is_ascii_alphanumeric(), 1));
    }
    let c = text[at..].chars().next()?;
    Some((c.is_alphanumeric(), c.len_utf8()))
}

/// Words as written → their stems. Each entry is a word and its stem side by side in one
/// buffer, found through a table of offsets: a lookup reads one place in memory, not two
/// separately allocated strings. The hash is fast and seeded at random (the keys are words of
/// the corpus, and the cache is emptied when full, so even a flood of colliding words would
/// cost time, never memory).
#[derive(Clone, Default)]
struct Stems {
    table: HashTable<Entry>,
    text: String,
    hasher: RandomState,
    /// The lower-cased word of a miss, kept to reuse its allocation.
    lower: String,
}

#[derive(Clone, Copy)]
struct Entry {
    /// Where the word starts in `text`; its stem follows it.
    start: u32,
    word_len: u8,
    stem_len: u8,
}

impl Entry {
    fn word<'t>(&self, text: &'t str) -> &'t str {
        let start = self.start as usize;
        &text[start..start + usize::from(self.word_len)]
    }

    fn stem<'t>(&self, text: &'t str) -> &'t str {
        let start = self.start as usize + usize::from(self.word_len);
        &text[start..start + usize::from(self.stem_len)]
    }
}

impl Stems {
    /// The stem of `word` (shorter than [`MAX_WORD_BYTES`]), as `en_stem` makes it.
    fn stem(&mut self, word: &str) -> &str {
        let hash = self.hasher.hash_one(word);
        let text = &self.text;
        if let Some(entry) = self.table.find(hash, |entry| entry.word(text) == word) {
            return entry.stem(&self.text);
        }
        lower_case(word, &mut self.lower);
        let stem =
            frostem::Stemmer::new(frostem::Algorithm::English).stem(&self.lower).into_owned();
        // The word is shorter than `MAX_WORD_BYTES` and lower-casing at most triples a
        // character's bytes, so both lengths fit a byte; were one not to, the stem is given
        // without being remembered.
        let (Ok(word_len), Ok(stem_len)) = (u8::try_from(word.len()), u8::try_from(stem.len()))
        else {
            self.lower = stem;
            return &self.lower;
        };
        if self.table.len() >= MAX_CACHED_WORDS {
            self.table.clear();
            self.text.clear();
        }
        // At most `MAX_CACHED_WORDS` words of under 256 bytes each, and their stems.
        let start = u32::try_from(self.text.len()).expect("the cache holds tens of MB at most");
        self.text.push_str(word);
        self.text.push_str(&stem);
        let entry = Entry { start, word_len, stem_len };
        let (text, hasher) = (&self.text, &self.hasher);
        self.table.insert_unique(hash, entry, |entry| hasher.hash_one(entry.word(text)));
        entry.stem(&self.text)
    }
}

/// `word` lower-cased into `out` as tantivy's `LowerCaser` does it: ASCII in place, anything
/// else character by character (so a final sigma is not treated specially).
fn lower_case(word: &str, out: &mut String) {
    out.clear();
    if word.is_ascii() {
        out.push_str(word);
        out.make_ascii_lowercase();
    } else {
        out.extend(word.chars().flat_map(char::to_lowercase));
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use tantivy::tokenizer::TokenizerManager;

    use super::*;

    fn tokens(analyzer: &mut TextAnalyzer, text: &str) -> Vec<(String, usize, usize, usize)> {
        let mut out = Vec::new();
        analyzer.token_stream(text).process(&mut |token: &Token| {
            out.push((token.text.clone(), token.position, token.offset_from, token.offset_to));
        });
        out
    }

    #[test]
    fn the_cached_analyzer_gives_tantivys_en_stem_tokens() {
        let mut reference = TokenizerManager::default().get(TANTIVY_EN_STEM).unwrap();
        let mut cached = english();
        let texts = [
            "Dogs are the bests! Running runners ran; connections CONNECTED connecting.",
            "Über-Größe: naïve cafés, Ελληνικά και Русский текст, العربية.",
            "ΣΊΣΥΦΟΣ Σίσυφος ὈΔΥΣΣΕΎΣ İstanbul ǅemal ﬁnancial Straße STRASSE ſtuff.",
            "Generalizations generalization generalizations, 1,234.5 km² in 2019-03-04.",
            "",
            "   ",
            "supercalifragilisticexpialidociousandevenlongerthanfortybytes word",
            "kept39bytesxxxxxxxxxxxxxxxxxxxxxxxxxxxx dropped40bytesxxxxxxxxxxxxxxxxxxxxxxxxxx x",
            "ȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺ ⅯⅯⅯ ⓐⓑⓒ ǈ",
            "Dogs are the bests! Running runners ran; connections CONNECTED connecting.",
            "dogs DOGS Dogs dOGS",
        ];
        // The same analyzer across texts, so later texts are served from its cache.
        for text in texts {
            assert_eq!(tokens(&mut cached, text), tokens(&mut reference, text), "{text:?}");
        }
    }

    fn stems(language: &str, text: &str) -> Vec<String> {
        tokens(&mut for_language(language), text).into_iter().map(|token| token.0).collect()
    }

    #[test]
    fn each_language_is_stemmed_by_its_own_rules() {
        // Inflected forms meet their base form in their language, not in English.
        assert_eq!(stems("de", "Bergen"), stems("de", "Berg"));
        assert_ne!(stems("en", "Bergen"), stems("en", "Berg"));
        assert_eq!(stems("fr", "mesurait"), stems("fr", "mesure"));
        assert_ne!(stems("en", "mesurait"), stems("en", "mesure"));
        assert_eq!(stems("es", "montañas"), stems("es", "montaña"));
        assert_eq!(stems("ru", "Москвы"), stems("ru", "Москва"));
        // No stemmer: words lower-cased as written; CJK in pairs whatever the language.
        assert_eq!(stems("zh", "巴黎 Paris"), ["巴黎", "paris"]);
        assert_eq!(stems("xx", "Bergen"), ["bergen"]);
        assert_eq!(stems("de", "Die Zugspitze 東京"), ["die", "zugspitz", "東京"]);
        assert_eq!(stemmer_language("de"), Some(Language::German));
        assert_eq!(stemmer_language("zh"), None);
    }

    #[test]
    fn short_ascii_words_are_their_own_stems() {
        let stemmer = frostem::Stemmer::new(frostem::Algorithm::English);
        let letters: Vec<char> = ('a'..='z').chain('0'..='9').collect();
        let words = letters
            .iter()
            .map(char::to_string)
            .chain(letters.iter().flat_map(|a| letters.iter().map(move |b| format!("{a}{b}"))));
        for word in words {
            assert!(word.len() <= SHORT_WORD_BYTES);
            assert_eq!(stemmer.stem(&word), word);
        }
    }

    #[test]
    fn a_full_cache_starts_again_and_stems_stay_right() {
        let mut reference = TokenizerManager::default().get(TANTIVY_EN_STEM).unwrap();
        let mut cached = english();
        let words: Vec<String> =
            (0..MAX_CACHED_WORDS + 10).map(|i| format!("running{i}s connections")).collect();
        for text in words.iter().step_by(997).chain(words.iter().rev().take(20)) {
            assert_eq!(tokens(&mut cached, text), tokens(&mut reference, text));
        }
        let mut tokenizer = EnglishTokenizer::default();
        for word in &words {
            tokenizer.token_stream(word).process(&mut |_| {});
        }
        assert!(tokenizer.stems.table.len() <= MAX_CACHED_WORDS, "{}", tokenizer.stems.table.len());
        assert!(!tokenizer.stems.table.is_empty());
        for text in words.iter().rev().take(20) {
            assert_eq!(tokens(&mut cached, text), tokens(&mut reference, text));
        }
    }

    /// Words of letters whose case rules are uneven (some grow when lower-cased, some have no
    /// lower case), digits, marks, ideographs and separators, long runs included.
    fn wordy_text() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            "[a-zA-Z]{1,12}",
            "[a-zA-Z0-9]{35,45}",
            "[ÄäÉéΣσςİıßẞﬁȺⱥǅǈⅯⓐ\u{0345}\u{0301}ΩΏРусский٣]{1,8}",
            "[ .,;:!?'\"()\n\t\u{00a0}_-]{1,3}",
            any::<String>(),
        ];
        // Text without CJK characters: those are cut into pairs, not given as `en_stem` gives
        // them.
        prop::collection::vec(piece, 0..40)
            .prop_map(|pieces| pieces.concat().chars().filter(|c| !is_cjk(*c)).collect())
    }

    #[test]
    fn cjk_runs_are_cut_into_overlapping_pairs_at_consecutive_positions() {
        let mut analyzer = english();
        let text = "埃菲尔铁塔位于巴黎";
        let pairs: Vec<(String, usize)> =
            tokens(&mut analyzer, text).into_iter().map(|(t, p, _, _)| (t, p)).collect();
        let expected = ["埃菲", "菲尔", "尔铁", "铁塔", "塔位", "位于", "于巴", "巴黎"];
        assert_eq!(
            pairs,
            expected.iter().enumerate().map(|(i, t)| (t.to_string(), i)).collect::<Vec<_>>()
        );
        // Offsets point at the pair in the text.
        for (token, _, from, to) in tokens(&mut analyzer, text) {
            assert_eq!(&text[from..to], token);
        }
        // A lone character is itself; words around a run are stemmed as ever; Japanese kana
        // and Korean Hangul are cut the same way.
        let mixed: Vec<String> = tokens(&mut analyzer, "In 2024年 Running 塔 東京タワー 서울에서")
            .into_iter()
            .map(|(t, _, _, _)| t)
            .collect();
        assert_eq!(
            mixed,
            [
                "in", "2024", "年", "run", "塔", "東京", "京タ", "タワ", "ワー", "서울", "울에",
                "에서"
            ]
        );
    }

    proptest! {
        #[test]
        fn property_same_tokens_as_en_stem(texts in prop::collection::vec(wordy_text(), 1..4)) {
            let mut reference = TokenizerManager::default().get(TANTIVY_EN_STEM).unwrap();
            let mut cached = english();
            // Each text twice, so the second pass is served from the cache.
            for text in texts.iter().chain(&texts) {
                prop_assert_eq!(tokens(&mut cached, text), tokens(&mut reference, text));
            }
        }
    }
}
