//! Reading the facts out of English text: tokens with their places, then numbers (with unit,
//! qualifier and range), dates, names, closed-set terms and negation cues per sentence.

mod dates;
mod names;
mod numbers;
mod terms;

use super::lexicon::{self, CLOSED_SETS, Qualifier};

/// A number and an approximate one agree when they differ by at most this share ("about 210"
/// for 212). Exact numbers must be equal (after normalising "1,000", "one thousand" and
/// "1k"), with a relative tolerance of 0.5% for rounding ("3.14" for 3.1416).
pub const APPROXIMATE: f64 = 0.1;

/// One word, number or symbol of a text.
#[derive(Debug, Clone)]
pub struct Token {
    /// Byte range in the text.
    pub start: usize,
    pub end: usize,
    pub lower: String,
    /// Starts with an upper-case letter.
    pub capitalised: bool,
    /// Index of the sentence holding it.
    pub sentence: usize,
    /// The first token of its sentence.
    pub first: bool,
    /// Right after a closing quote mark and a space ([`opens_after_quote`]): it may open a
    /// point of its own, and is read as a first word is.
    pub after_quote: bool,
}

/// What a fact states.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Number {
        value: f64,
        /// The upper end of a range ("between 200 and 250").
        upper: Option<f64>,
        unit: Option<&'static str>,
        /// The word after the number when it is no known unit ("12 people").
        noun: Option<String>,
        qualifier: Option<Qualifier>,
        /// "21st", "100th".
        ordinal: bool,
    },
    Date {
        year: Option<i32>,
        month: Option<u8>,
        day: Option<u8>,
    },
    /// A name's words, lower-cased, without possessives, joiners, titles and initials.
    Name(Vec<String>),
    /// A member of one of [`lexicon::CLOSED_SETS`].
    Term {
        set: usize,
        member: usize,
    },
}

/// A fact and where it stands.
#[derive(Debug, Clone)]
pub struct Fact {
    pub value: Value,
    /// Byte range in the text.
    pub start: usize,
    pub end: usize,
    pub sentence: usize,
    /// Index of its first token.
    pub token: usize,
}

/// A text read for facts.
#[derive(Debug, Clone)]
pub struct Parsed<'a> {
    pub text: &'a str,
    pub tokens: Vec<Token>,
    pub facts: Vec<Fact>,
    /// Per sentence: its token range.
    pub sentences: Vec<std::ops::Range<usize>>,
    /// Byte ranges that ask rather than state: a sentence ending in "?" and a quoted question
    /// ("the question \"Who won in 2008?\"").
    pub questions: Vec<std::ops::Range<usize>>,
}

impl Parsed<'_> {
    pub fn slice(&self, start: usize, end: usize) -> &str {
        &self.text[start..end]
    }

    /// Whether the byte at `at` lies in a question: what a question names it does not state.
    pub fn asked(&self, at: usize) -> bool {
        self.questions.iter().any(|range| range.contains(&at))
    }

    /// The tokens of sentence `index`.
    pub fn sentence_tokens(&self, index: usize) -> &[Token] {
        &self.tokens[self.sentences[index].clone()]
    }

    /// How many verbal negation cues ("not", "n't", "never", "cannot") sentence `index` holds:
    /// "no" and "none" are left out, since a paraphrase moves them freely ("no chance" for
    /// "never likely").
    pub fn negations(&self, index: usize) -> usize {
        self.negations_before(index, |_| true)
    }

    /// The words of sentence `index` said not to be so: after each verbal negation cue, the
    /// first word within four that `counts` accepts (the negated verb or adjective; "who do
    /// not comply will face fines" negates complying, not facing fines).
    pub fn negated_words(&self, index: usize, counts: impl Fn(&str) -> bool) -> Vec<String> {
        let tokens = self.sentence_tokens(index);
        let mut out = Vec::new();
        for at in (0..tokens.len()).filter(|&at| lexicon::is_verbal_negation(&tokens[at].lower)) {
            if let Some(token) =
                tokens[at + 1..(at + 5).min(tokens.len())].iter().find(|t| counts(&t.lower))
                && !out.contains(&token.lower)
            {
                out.push(token.lower.clone());
            }
        }
        out
    }

    /// Like [`Parsed::negations`], counting only the cues followed within four words by a
    /// word `counts` accepts (the negated verb or adjective).
    pub fn negations_before(&self, index: usize, counts: impl Fn(&str) -> bool) -> usize {
        let tokens = self.sentence_tokens(index);
        (0..tokens.len())
            .filter(|&at| lexicon::is_verbal_negation(&tokens[at].lower))
            .filter(|&at| {
                tokens[at + 1..(at + 5).min(tokens.len())].iter().any(|t| counts(&t.lower))
            })
            .count()
    }
}

fn joins(previous: char, c: char, next: Option<char>) -> bool {
    let Some(next) = next else { return false };
    match c {
        '.' | ',' | ':' => previous.is_ascii_digit() && next.is_ascii_digit(),
        '-' | '\'' | '’' | '/' => previous.is_alphanumeric() && next.is_alphanumeric(),
        _ => false,
    }
}

/// The tokens of `text`: runs of letters and digits (joined by inner hyphens, apostrophes,
/// slashes, and decimal points or thousands separators between digits), and the symbols
/// `% $ £ € ~` on their own.
pub fn tokenize(text: &str) -> Vec<(usize, usize)> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut out = Vec::new();
    let mut index = 0;
    while index < chars.len() {
        let (start, c) = chars[index];
        if matches!(c, '%' | '$' | '£' | '€' | '~') {
            out.push((start, start + c.len_utf8()));
            index += 1;
            continue;
        }
        if !c.is_alphanumeric() {
            index += 1;
            continue;
        }
        let mut end = index + 1;
        while end < chars.len() {
            let c = chars[end].1;
            if c.is_alphanumeric() {
                end += 1;
            } else if joins(chars[end - 1].1, c, chars.get(end + 1).map(|(_, c)| *c)) {
                end += 2;
            } else {
                break;
            }
        }
        let stop = chars.get(end).map_or(text.len(), |(at, _)| *at);
        out.push((start, stop));
        index = end;
    }
    out
}

/// What tells a name at a sentence's start from a capitalised common word.
#[derive(Debug, Default, Clone)]
pub struct FirstWords {
    /// Lower-cased words seen capitalised inside a sentence in the texts compared.
    pub capitalised: std::collections::HashSet<String>,
    /// Words seen in lower case in the texts compared.
    pub lower: std::collections::HashSet<String>,
    /// Whether a lone first word is a name unless it is seen in lower case or looks like an
    /// inflected word ("Armstrong became …" in evidence); otherwise only when it is seen
    /// capitalised elsewhere (a claim's "Residents were evacuated" names nobody).
    pub loose: bool,
}

impl FirstWords {
    fn is_name(&self, word: &str) -> bool {
        if self.capitalised.contains(word) {
            return true;
        }
        self.loose
            && !self.lower.contains(word)
            && !["ing", "ed", "ly", "ers", "ists", "ians"].iter().any(|end| word.ends_with(end))
    }
}

/// Reads `text` for facts; sentences are cut by Factdesk's English rules, and a sentence's
/// capitalised first word counts as a name as `first` says.
pub fn parse<'a>(text: &'a str, first: &FirstWords) -> Parsed<'a> {
    let spans = factdesk_text::segment_sentences(text, "en");
    let mut tokens = Vec::new();
    let mut sentences = Vec::new();
    let cut = |start: usize, end: usize, sentence: usize, tokens: &mut Vec<Token>| {
        let from = tokens.len();
        for (a, b) in tokenize(&text[start..end]) {
            let word = &text[start + a..start + b];
            tokens.push(Token {
                start: start + a,
                end: start + b,
                lower: word.to_lowercase(),
                capitalised: word.chars().next().is_some_and(char::is_uppercase),
                sentence,
                first: tokens.len() == from,
                after_quote: tokens.len() > from
                    && tokens.last().is_some_and(|previous: &Token| {
                        opens_after_quote(
                            &text[start..previous.start],
                            &previous.lower,
                            &text[previous.end..start + a],
                        )
                    }),
            });
        }
        from..tokens.len()
    };
    if spans.is_empty() {
        sentences.push(cut(0, text.len(), 0, &mut tokens));
    } else {
        for (index, span) in spans.iter().enumerate() {
            sentences.push(cut(
                span.start_byte as usize,
                span.end_byte as usize,
                index,
                &mut tokens,
            ));
        }
    }
    let mut questions = quoted_questions(text);
    for span in &spans {
        let sentence = span.slice(text).trim_end_matches(|c: char| {
            c.is_whitespace() || matches!(c, '"' | '\'' | '\u{201d}' | '\u{2019}' | ')')
        });
        if sentence.ends_with('?') {
            questions.push(span.start_byte as usize..span.end_byte as usize);
        }
    }
    let mut parsed = Parsed { text, tokens, facts: Vec::new(), sentences, questions };
    parsed.facts = facts(&parsed, first);
    parsed
}

/// Byte ranges of quotations ending in a question mark: `"Who won in 2008?"`, `“Why?”`.
fn quoted_questions(text: &str) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut open: Option<usize> = None;
    for (at, c) in text.char_indices() {
        match (c, open) {
            ('"', None) | ('\u{201c}', None) => open = Some(at),
            ('"', Some(start)) | ('\u{201d}', Some(start)) => {
                if text[start..at].trim_end().ends_with('?') {
                    out.push(start..at + c.len_utf8());
                }
                open = None;
            }
            _ => {}
        }
    }
    out
}

/// Adds to `into` the words of `text` seen capitalised other than at a sentence's start or
/// after a closing quote ([`opens_after_quote`]), and those seen in lower case.
pub fn first_words(text: &str, into: &mut FirstWords) {
    for span in factdesk_text::segment_sentences(text, "en") {
        let sentence = span.slice(text);
        let mut previous = (0, 0);
        for (index, (a, b)) in tokenize(sentence).into_iter().enumerate() {
            let word = &sentence[a..b];
            if word.chars().next().is_some_and(char::is_uppercase) {
                let (from, to) = previous;
                if index > 0
                    && !opens_after_quote(&sentence[..from], &sentence[from..to], &sentence[to..a])
                {
                    into.capitalised.insert(word.to_lowercase());
                }
            } else {
                into.lower.insert(word.to_owned());
            }
            previous = (a, b);
        }
    }
}

/// Whether `gap`, the text between the word `previous` and the next, closes a quotation and
/// leaves a space: news summaries run their points together without a full stop ("'decapitate
/// Britannia' Says Scottish Nationalists …"), so the capitalised word after it may open a
/// point of its own. An apostrophe after an "s" with no quote opened before it in the
/// sentence (`before`) is a plural's possessive ("the Saints' Theo Walcott"), not a quote.
fn opens_after_quote(before: &str, previous: &str, gap: &str) -> bool {
    let rest = gap.trim_start_matches(['\'', '"', '\u{2019}', '\u{201d}']);
    let opened = |text: &str| {
        let mut last = ' ';
        text.chars().any(|c| {
            let opens = matches!(c, '\'' | '\u{2018}') && !last.is_alphanumeric();
            last = c;
            opens
        })
    };
    let possessive =
        previous.ends_with(['s', 'S']) && gap.starts_with(['\'', '\u{2019}']) && !opened(before);
    !possessive
        && rest.len() < gap.len()
        && !rest.is_empty()
        && rest.chars().all(char::is_whitespace)
}

/// One reading of a text's facts: its passes share which tokens a fact has taken.
struct Reader<'p, 'a> {
    parsed: &'p Parsed<'a>,
    /// Tokens a fact has taken.
    used: Vec<bool>,
    /// The nouns numbers count ("three women"): used by their number, yet closed-set terms.
    counted: Vec<usize>,
    out: Vec<Fact>,
}

/// The fact `value` stated by tokens `from` to `to`.
fn make_fact(tokens: &[Token], value: Value, from: usize, to: usize) -> Fact {
    Fact {
        value,
        start: tokens[from].start,
        end: tokens[to].end,
        sentence: tokens[from].sentence,
        token: from,
    }
}

/// The facts of `parsed`, in the order they stand: dates first (their days and years are no
/// plain numbers), then numbers, closed-set terms and names.
fn facts(parsed: &Parsed, first: &FirstWords) -> Vec<Fact> {
    let mut reader = Reader {
        parsed,
        used: vec![false; parsed.tokens.len()],
        counted: Vec::new(),
        out: Vec::new(),
    };
    reader.dates();
    reader.numbers();
    reader.terms();
    reader.names(first);
    let mut out = reader.out;
    out.sort_by_key(|fact| fact.token);
    out
}
