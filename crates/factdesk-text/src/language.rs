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
