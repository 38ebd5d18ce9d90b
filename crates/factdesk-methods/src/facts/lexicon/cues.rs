//! Cues of polarity and belief: negations, the frames that report a belief, and function
//! words.

/// Words that negate the statement they stand in.
pub fn is_negation(word: &str) -> bool {
    matches!(
        word,
        "not"
            | "never"
            | "no"
            | "none"
            | "nobody"
            | "nothing"
            | "neither"
            | "nor"
            | "cannot"
            | "without"
            | "nowhere"
    ) || word.ends_with("n't")
        || word.ends_with("n’t")
}

/// The negation cues that turn a verb ("not", "n't", "never", "cannot").
pub fn is_verbal_negation(word: &str) -> bool {
    matches!(word, "not" | "never" | "cannot") || word.ends_with("n't") || word.ends_with("n’t")
}

/// Phrases that report a belief the text then denies ("a popular belief holds that …").
pub const BELIEF_FRAMES: &[&str] = &[
    "popular belief",
    "common belief",
    "widely believed",
    "commonly believed",
    "popularly believed",
    "a myth",
    "the myth",
    "misconception",
    "often claimed",
    "often said",
    "it is said that",
    "legend has it",
    "urban legend",
];

/// Words that carry no fact of their own when counting what a sentence shares with a claim.
pub const FUNCTION_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "been", "being", "but", "by", "did", "do", "does",
    "for", "from", "had", "has", "have", "he", "her", "his", "i", "in", "into", "is", "it", "its",
    "of", "on", "or", "she", "so", "than", "that", "the", "their", "them", "then", "there",
    "these", "they", "this", "those", "to", "was", "were", "which", "who", "whom", "will", "with",
    "would", "you", "said", "says", "also", "can", "could", "may", "might", "should", "after",
    "before", "about", "over", "up", "out", "more", "most", "not", "no", "when", "where", "while",
    "what", "we", "our", "if", "because", "during", "until", "since", "just",
];

/// Words that make a relation between two names read both ways ("Costa shook hands with
/// Freebody", "Costa married Rossi", "United drew with Madrid", "Costa and Freebody"): names
/// turned round across one of these say the same. "Against" is not one: "Costa filed a
/// lawsuit against Freebody" turned round says something else.
pub fn is_symmetric_cue(word: &str) -> bool {
    matches!(
        word,
        "with"
            | "and"
            | "or"
            | "nor"
            | "between"
            | "versus"
            | "vs"
            | "alongside"
            | "together"
            | "both"
            | "met"
            | "meets"
            | "meet"
            | "meeting"
            | "married"
            | "marry"
            | "marries"
            | "wed"
            | "divorced"
            | "drew"
            | "draw"
            | "tied"
            | "partnered"
            | "partners"
            | "siblings"
            | "cousins"
            | "friends"
            | "colleagues"
            | "rivals"
            | "neighbours"
            | "neighbors"
    )
}
