//! The text analyzer of the sentence field: tantivy's `en_stem` (words, long words dropped,
//! lower case, English Snowball stems) with one change of speed, not of output — each word's
//! stem is remembered.
//!
//! A news corpus has millions of words but only tens of thousands of distinct ones, and the
//! Snowball stemmer works each word out from scratch. The cache is per analyzer (tantivy
//! clones the registered analyzer for every segment writer and every query), bounded, and
//! emptied when full, so a clone never grows past [`MAX_CACHED_WORDS`].

use std::collections::HashMap;

use foldhash::fast::RandomState;

use tantivy::tokenizer::{
    LowerCaser, RemoveLongFilter, SimpleTokenizer, TextAnalyzer, Token, TokenFilter, TokenStream,
    Tokenizer,
};

/// The name the analyzer is registered under: the schema's, so indexes built with tantivy's
/// own `en_stem` stay valid (the tokens are the same).
pub(crate) const NAME: &str = "en_stem";

/// Words longer than this many bytes are dropped (tantivy's `en_stem` limit).
const MAX_WORD_BYTES: usize = 40;

/// Distinct words one analyzer remembers before it starts again.
const MAX_CACHED_WORDS: usize = 1 << 17;

/// The sentence field's analyzer.
pub(crate) fn english() -> TextAnalyzer {
    TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(MAX_WORD_BYTES))
        .filter(LowerCaser)
        .filter(CachedEnglishStemmer)
        .build()
}

/// English Snowball stemming that remembers each word's stem.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct CachedEnglishStemmer;

impl TokenFilter for CachedEnglishStemmer {
    type Tokenizer<T: Tokenizer> = CachedStemmerFilter<T>;

    fn transform<T: Tokenizer>(self, tokenizer: T) -> CachedStemmerFilter<T> {
        CachedStemmerFilter { inner: tokenizer, stems: Stems::default() }
    }
}

/// Lower-cased word → its stem (a fast hash: the keys are words of the corpus, and the cache
/// is emptied when full, so a flood of colliding words costs time, never memory).
type Stems = HashMap<Box<str>, Box<str>, RandomState>;

#[derive(Clone)]
pub(crate) struct CachedStemmerFilter<T> {
    inner: T,
    stems: Stems,
}

impl<T: Tokenizer> Tokenizer for CachedStemmerFilter<T> {
    type TokenStream<'a> = CachedStemmerStream<'a, T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        CachedStemmerStream { tail: self.inner.token_stream(text), stems: &mut self.stems }
    }
}

pub(crate) struct CachedStemmerStream<'a, S> {
    tail: S,
    stems: &'a mut Stems,
}

impl<S: TokenStream> TokenStream for CachedStemmerStream<'_, S> {
    fn advance(&mut self) -> bool {
        if !self.tail.advance() {
            return false;
        }
        let token = self.tail.token_mut();
        if let Some(stem) = self.stems.get(token.text.as_str()) {
            token.text.clear();
            token.text.push_str(stem);
            return true;
        }
        let stem: Box<str> =
            frostem::Stemmer::new(frostem::Algorithm::English).stem(&token.text).into();
        if self.stems.len() >= MAX_CACHED_WORDS {
            self.stems.clear();
        }
        self.stems.insert(token.text.as_str().into(), stem.clone());
        token.text.clear();
        token.text.push_str(&stem);
        true
    }

    fn token(&self) -> &Token {
        self.tail.token()
    }

    fn token_mut(&mut self) -> &mut Token {
        self.tail.token_mut()
    }
}

#[cfg(test)]
mod tests {
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
        let mut reference = TokenizerManager::default().get(NAME).unwrap();
        let mut cached = english();
        let texts = [
            "Dogs are the bests! Running runners ran; connections CONNECTED connecting.",
            "Über-Größe: naïve cafés, Ελληνικά και Русский текст, 日本語のテキスト.",
            "Generalizations generalization generalizations, 1,234.5 km² in 2019-03-04.",
            "",
            "   ",
            "supercalifragilisticexpialidociousandevenlongerthanfortybytes word",
            "Dogs are the bests! Running runners ran; connections CONNECTED connecting.",
        ];
        // The same analyzer across texts, so later texts are served from its cache.
        for text in texts {
            assert_eq!(tokens(&mut cached, text), tokens(&mut reference, text), "{text:?}");
        }
    }

    #[test]
    fn a_full_cache_starts_again_and_stems_stay_right() {
        let mut reference = TokenizerManager::default().get(NAME).unwrap();
        let mut cached = english();
        let words: Vec<String> =
            (0..MAX_CACHED_WORDS + 10).map(|i| format!("running{i}s connections")).collect();
        for text in words.iter().step_by(997).chain(words.iter().rev().take(20)) {
            assert_eq!(tokens(&mut cached, text), tokens(&mut reference, text));
        }
        let mut filter = CachedEnglishStemmer.transform(SimpleTokenizer::default());
        for word in &words {
            filter.token_stream(word).process(&mut |_| {});
        }
        assert!(filter.stems.len() <= MAX_CACHED_WORDS, "{}", filter.stems.len());
        assert!(!filter.stems.is_empty());
    }
}
