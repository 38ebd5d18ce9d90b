//! Evidence "sentences" that state nothing on their own — headings, titles, captions, labels
//! — and the premises worth judging, those with at least one sentence that is not such a
//! fragment. Both the premise builders ([`crate::grounding`]) and the judging step
//! ([`crate::judge`]) ask; it is its own module so that neither depends on the other for it.

/// A fragment has at most this many words and no closing punctuation.
pub const FRAGMENT_WORDS: usize = 8;

/// Whether an evidence "sentence" is a fragment — a heading, a title, a caption or a label:
/// at most [`FRAGMENT_WORDS`] words and no sentence-ending punctuation (quotes and brackets
/// after it aside). A fragment states nothing on its own, so it is never a premise alone.
pub fn is_fragment(sentence: &str) -> bool {
    let text = sentence.trim().trim_end_matches(['"', '\'', ')', ']', '”', '’', '»', '」', '』']);
    let closed = text.ends_with(['.', '!', '?', '…', '。', '！', '？']);
    !closed && text.split_whitespace().count() <= FRAGMENT_WORDS
}

/// The premises worth judging: those with at least one sentence that is not a fragment.
pub fn judgeable(premise: &[String]) -> bool {
    premise.iter().any(|sentence| !is_fragment(sentence))
}
