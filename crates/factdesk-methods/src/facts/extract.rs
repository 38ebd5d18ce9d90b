//! Reading the facts out of English text: tokens with their places, then numbers (with unit,
//! qualifier and range), dates, names, closed-set terms and negation cues per sentence.

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
#[derive(Debug, Default)]
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

/// Adds to `into` the words of `text` seen capitalised other than at a sentence's start, and
/// those seen in lower case.
pub fn first_words(text: &str, into: &mut FirstWords) {
    for span in factdesk_text::segment_sentences(text, "en") {
        let sentence = span.slice(text);
        for (index, (a, b)) in tokenize(sentence).into_iter().enumerate() {
            let word = &sentence[a..b];
            if word.chars().next().is_some_and(char::is_uppercase) {
                if index > 0 {
                    into.capitalised.insert(word.to_lowercase());
                }
            } else {
                into.lower.insert(word.to_owned());
            }
        }
    }
}

fn small_number(word: &str) -> Option<f64> {
    if let Some(value) = lexicon::SMALL_NUMBERS.iter().position(|w| *w == word) {
        return Some(value as f64);
    }
    if let Some(tens) = lexicon::TENS.iter().position(|w| *w == word) {
        return Some((tens as f64 + 2.0) * 10.0);
    }
    let (tens, unit) = word.split_once('-')?;
    let tens = lexicon::TENS.iter().position(|w| *w == tens)?;
    let unit = lexicon::SMALL_NUMBERS[1..10].iter().position(|w| *w == unit)?;
    Some((tens as f64 + 2.0) * 10.0 + unit as f64 + 1.0)
}

/// A number written in digits, with what stands glued to it: (value, suffix).
fn digits(word: &str) -> Option<(f64, &str)> {
    let split =
        word.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ',')).unwrap_or(word.len());
    let (number, suffix) = word.split_at(split);
    if number.is_empty() || !number.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let plain: String = number.chars().filter(|c| *c != ',').collect();
    // "1,5" is no number in English text; "1,500" is.
    if number.contains(',') && number.split(',').skip(1).any(|group| group.len() != 3) {
        return None;
    }
    Some((plain.parse::<f64>().ok()?, suffix))
}

fn is_year(value: f64, word: &str) -> bool {
    value.fract() == 0.0 && (1000.0..=2100.0).contains(&value) && word.len() == 4
}

fn month_token(token: &Token) -> Option<u8> {
    // "may" and "march" are verbs too: a month is capitalised.
    if token.capitalised { lexicon::month(&token.lower) } else { None }
}

fn day_of(token: Option<&Token>) -> Option<u8> {
    let token = token?;
    let word = token.lower.trim_end_matches(['s', 't', 'n', 'd', 'r', 'h']);
    let day: u8 = word.parse().ok()?;
    (1..=31).contains(&day).then_some(day)
}

fn year_of(token: Option<&Token>) -> Option<i32> {
    let token = token?;
    let value: i32 = token.lower.parse().ok()?;
    (token.lower.len() == 4 && (1000..=2100).contains(&value)).then_some(value)
}

fn facts(parsed: &Parsed, first: &FirstWords) -> Vec<Fact> {
    let tokens = &parsed.tokens;
    let mut used = vec![false; tokens.len()];
    // The nouns numbers count ("three women"): used by their number, yet closed-set terms.
    let mut counted: Vec<usize> = Vec::new();
    let mut out = Vec::new();
    let fact = |value: Value, from: usize, to: usize| Fact {
        value,
        start: tokens[from].start,
        end: tokens[to].end,
        sentence: tokens[from].sentence,
        token: from,
    };
    let same_sentence = |a: usize, b: usize| tokens[a].sentence == tokens[b].sentence;
    // Dates first: their days and years are no plain numbers.
    for index in 0..tokens.len() {
        if used[index] {
            continue;
        }
        if let Some(date) =
            iso_date(&tokens[index].lower).or_else(|| slashed_date(&tokens[index].lower))
        {
            used[index] = true;
            out.push(fact(date, index, index));
            continue;
        }
        let Some(month) = month_token(&tokens[index]) else { continue };
        let mut from = index;
        let mut to = index;
        let mut day = None;
        if index > 0
            && same_sentence(index - 1, index)
            && !used[index - 1]
            && let Some(d) = day_of(tokens.get(index - 1))
        {
            day = Some(d);
            from = index - 1;
        }
        let mut next = index + 1;
        if day.is_none()
            && next < tokens.len()
            && same_sentence(index, next)
            && let (Some(d), None) = (day_of(tokens.get(next)), year_of(tokens.get(next)))
        {
            day = Some(d);
            to = next;
            next += 1;
        }
        let mut year = None;
        if next < tokens.len()
            && same_sentence(index, next)
            && let Some(y) = year_of(tokens.get(next))
        {
            year = Some(y);
            to = next;
        }
        if day.is_none() && year.is_none() && tokens[index].lower == "may" {
            continue;
        }
        for slot in &mut used[from..=to] {
            *slot = true;
        }
        out.push(fact(Value::Date { year, month: Some(month), day }, from, to));
    }
    // Numbers.
    let mut index = 0;
    while index < tokens.len() {
        if used[index] {
            index += 1;
            continue;
        }
        let Some((number, last)) = number_at(tokens, index) else {
            index += 1;
            continue;
        };
        let word = &tokens[index].lower;
        // A telephone number or a code ("08457 90 90 90", "0800 123"): digits after a leading
        // zero, or several groups of digits in a row, state no figure.
        let code = |at: usize| {
            tokens
                .get(at)
                .is_some_and(|t| !t.lower.is_empty() && t.lower.bytes().all(|b| b.is_ascii_digit()))
        };
        let spaced = |a: usize, b: usize| parsed.text[tokens[a].end..tokens[b].start] == *" ";
        if code(index)
            && ((word.len() >= 3 && word.starts_with('0'))
                || (code(index + 1) && spaced(index, index + 1) && same_sentence(index, index + 1)))
        {
            let mut end = index;
            while code(end + 1) && spaced(end, end + 1) && same_sentence(index, end + 1) {
                end += 1;
            }
            for slot in &mut used[index..=end] {
                *slot = true;
            }
            index = end + 1;
            continue;
        }
        let previous = |back: usize| {
            index
                .checked_sub(back)
                .filter(|at| same_sentence(*at, index))
                .map_or("", |at| tokens[at].lower.as_str())
        };
        let currency =
            lexicon::unit(previous(1)).filter(|_| matches!(previous(1), "$" | "£" | "€"));
        let mut value = number.value;
        let mut to = last;
        // A glued suffix: "5km", "3bn", "21st", "1990s".
        let suffix = number.suffix.as_str();
        let mut unit = currency;
        let mut ordinal = false;
        if !suffix.is_empty() {
            if matches!(suffix, "st" | "nd" | "rd" | "th") {
                ordinal = true;
            } else if suffix == "s" && is_year(value, word.trim_end_matches('s')) {
                // A decade: a date of its own kind.
                used[index] = true;
                out.push(fact(
                    Value::Number {
                        value,
                        upper: None,
                        unit: Some("decade"),
                        noun: None,
                        qualifier: None,
                        ordinal: false,
                    },
                    index,
                    index,
                ));
                index += 1;
                continue;
            } else if let Some(times) =
                lexicon::multiplier(suffix).filter(|_| currency.is_some() || suffix != "m")
            {
                value *= times;
            } else if let Some(u) = lexicon::unit(suffix) {
                unit = Some(u);
            } else if let Some(tail) = suffix.strip_prefix('-') {
                // "£1,000-a-year" is a sum of money, paid yearly.
                if currency.is_none() || !per_period(tail) {
                    // "30-year-old", "5-mile", "3-bedroom".
                    unit = Some(hyphen_unit(tail));
                }
            } else if let Some(u) = suffix.split_once('-').and_then(|(head, _)| lexicon::unit(head))
            {
                // "10in-tall".
                unit = Some(u);
            } else {
                // "4:45" (a time of day) and other codes state no figure.
                index += 1;
                continue;
            }
        }
        // "2.5 million", "200 per cent", "212 metres".
        let mut next = to + 1;
        if next < tokens.len()
            && same_sentence(next, index)
            && let Some(times) =
                lexicon::multiplier(&tokens[next].lower).filter(|_| number.multipliable)
        {
            value *= times;
            to = next;
            next += 1;
        }
        let mut noun = None;
        // The unit or noun follows with nothing but spaces between ("24, took" counts nothing).
        let adjacent =
            |a: usize, b: usize| parsed.text[tokens[a].end..tokens[b].start].trim().is_empty();
        if next < tokens.len() && same_sentence(next, index) && !ordinal && adjacent(to, next) {
            let after = tokens[next].lower.as_str();
            let two = tokens.get(next + 1).map(|t| format!("{after} {}", t.lower));
            if let Some(u) = two.as_deref().and_then(lexicon::unit).filter(|u| *u == "percent") {
                unit = Some(u);
                to = next + 1;
            } else if let Some(u) = lexicon::unit(after).filter(|_| unit.is_none() && after != "in")
            {
                unit = Some(u);
                to = next;
                // "seven years old" is an age, as "seven-year-old" is.
                if let Some(age) = age_unit(u)
                    && tokens.get(next + 1).is_some_and(|t| t.lower == "old")
                    && same_sentence(next + 1, index)
                {
                    unit = Some(age);
                    to = next + 1;
                }
            } else if after.chars().all(char::is_alphabetic)
                && !lexicon::FUNCTION_WORDS.contains(&after)
            {
                noun = Some(super::singular(after));
                to = next;
            }
        }
        // "Joseph O'Riordan, 73, stabbed …": a bare number set off by commas after a name is
        // the person's age, as "73-year-old" is.
        let between = |a: usize, b: usize| &parsed.text[tokens[a].end..tokens[b].start];
        let apposed = index > 0
            && same_sentence(index - 1, index)
            && tokens[index - 1].capitalised
            && between(index - 1, index).trim() == ","
            && (to + 1 >= tokens.len()
                || !same_sentence(index, to + 1)
                || between(to, to + 1).trim_start().starts_with([',', ')']));
        if apposed
            && unit.is_none()
            && noun.is_none()
            && !ordinal
            && number.digits
            && number.range.is_none()
            && value.fract() == 0.0
            && (1.0..130.0).contains(&value)
        {
            unit = Some("year-old");
        }
        let qualifier = lexicon::qualifier(previous(1), previous(2));
        // A range: "between 200 and 250", "200 to 250", "200-250".
        let mut upper = None;
        if let Some((low, high)) = number.range {
            value = low;
            upper = Some(high);
        } else if let Some(link) = tokens
            .get(to + 1)
            .filter(|t| same_sentence(index, to + 1) && matches!(t.lower.as_str(), "to" | "and"))
            && (link.lower == "to" || previous(1) == "between")
            && let Some((high, high_last)) =
                number_at(tokens, to + 2).filter(|_| same_sentence(index, to + 2))
            && high.suffix.is_empty()
            // "fell by 76,000 to 1.84 million" is a change, not a range; "between 2005 and
            // 2012" two years.
            && high.value > value
            && !(is_year(value, word) && is_year(high.value, &tokens[to + 2].lower))
        {
            upper = Some(high.value);
            to = high_last;
        }
        if unit.is_none()
            && noun.is_none()
            && upper.is_none()
            && !ordinal
            && number.digits
            && is_year(value, word)
        {
            for slot in &mut used[index..=to] {
                *slot = true;
            }
            out.push(fact(
                Value::Date { year: Some(value as i32), month: None, day: None },
                index,
                to,
            ));
            index = to + 1;
            continue;
        }
        let from = if currency.is_some() { index - 1 } else { index };
        for slot in &mut used[from..=to] {
            *slot = true;
        }
        if noun.is_some() {
            counted.push(to);
        }
        out.push(fact(Value::Number { value, upper, unit, noun, qualifier, ordinal }, from, to));
        index = to + 1;
    }
    // Closed-set terms (a word of a name may state one: "Western Australia"; so may the noun
    // a number counts: "three women", "her 65-year-old daughter").
    for (index, token) in tokens.iter().enumerate() {
        if used[index] && !counted.contains(&index) {
            continue;
        }
        // "last Wednesday", "last year" say when, not a rank ("the last day" is one).
        let determined = index.checked_sub(1).is_some_and(|at| {
            same_sentence(at, index)
                && matches!(
                    tokens[at].lower.as_str(),
                    "the" | "its" | "his" | "her" | "their" | "our" | "my" | "your" | "this"
                )
        });
        if token.lower == "last"
            && !determined
            && tokens.get(index + 1).is_some_and(|next| {
                same_sentence(index, index + 1)
                    && (lexicon::is_time_word(&next.lower) || month_token(next).is_some())
            })
        {
            continue;
        }
        let mut parts: Vec<&str> =
            std::iter::once(token.lower.as_str()).chain(token.lower.split('-')).collect();
        // "northeast", "southwestern": both directions.
        for head in ["north", "south"] {
            if let Some(tail) = token.lower.strip_prefix(head)
                && (tail.starts_with("east") || tail.starts_with("west"))
            {
                parts.extend([head, tail]);
            }
        }
        let mut seen = Vec::new();
        for part in parts {
            for (set_index, set) in CLOSED_SETS.iter().enumerate() {
                if token.capitalised && !token.first && !set.capitalised {
                    continue;
                }
                if let Some(member) = set.members.iter().position(|forms| forms.contains(&part))
                    && !seen.contains(&(set_index, member))
                {
                    seen.push((set_index, member));
                    out.push(fact(Value::Term { set: set_index, member }, index, index));
                }
            }
        }
    }
    // Names: runs of capitalised words, joined by "of", "de", "van", ….
    let mut index = 0;
    while index < tokens.len() {
        let token = &tokens[index];
        // A capitalised first word of a sentence starts a name only as `first` says ("Cousin of
        // Princes William" names the princes, not the cousin).
        let starts = token.capitalised
            && (!token.first || first.is_name(&token.lower))
            && !used[index]
            && token.lower.chars().next().is_some_and(char::is_alphabetic)
            && !lexicon::NOT_NAMES
                .contains(&token.lower.trim_end_matches("'s").trim_end_matches("’s"))
            && lexicon::month(&token.lower).is_none()
            && !lexicon::is_weekday(&token.lower);
        if !starts {
            index += 1;
            continue;
        }
        // Words of one name stand apart by spaces only, or by the stop after an initial or an
        // abbreviated title ("George W. Bush", "Dr. Fredric Brandt"): not "ORDINARY: Austin
        // Bird", "Trident. 'We", "Buddy Holly, Charles Manson".
        let adjoining = |a: usize, b: usize| {
            let gap = parsed.slice(tokens[a].end, tokens[b].start).trim();
            gap.is_empty()
                || gap == "."
                    && (tokens[a].lower.chars().count() == 1
                        || matches!(
                            tokens[a].lower.as_str(),
                            "mr" | "mrs"
                                | "ms"
                                | "dr"
                                | "st"
                                | "jr"
                                | "sr"
                                | "prof"
                                | "gen"
                                | "col"
                                | "lt"
                                | "sgt"
                                | "rev"
                                | "capt"
                                | "gov"
                                | "sen"
                                | "rep"
                        ))
        };
        let mut to = index;
        loop {
            let next = to + 1;
            if next < tokens.len()
                && same_sentence(next, index)
                && adjoining(to, next)
                && tokens[next].capitalised
                && !used[next]
                && lexicon::month(&tokens[next].lower).is_none()
            {
                to = next;
            } else if next + 1 < tokens.len()
                && same_sentence(next + 1, index)
                && lexicon::NAME_JOINERS.contains(&tokens[next].lower.as_str())
                && adjoining(to, next)
                && adjoining(next, next + 1)
                && !tokens[next].capitalised
                && tokens[next + 1].capitalised
                && !used[next + 1]
            {
                to = next + 1;
            } else {
                break;
            }
        }
        let words: Vec<String> = tokens[index..=to]
            .iter()
            .map(|t| t.lower.trim_end_matches("'s").trim_end_matches("’s").to_owned())
            .filter(|w| {
                !lexicon::NAME_JOINERS.contains(&w.as_str())
                    && w.chars().count() > 1
                    && !matches!(
                        w.as_str(),
                        "mr" | "mrs" | "ms" | "dr" | "prof" | "sir" | "st" | "the"
                    )
            })
            .collect();
        if !words.is_empty() {
            out.push(fact(Value::Name(words), index, to));
        }
        index = to + 1;
    }
    out.sort_by_key(|fact| fact.token);
    out
}

/// "2020-11-18" as a date.
fn iso_date(word: &str) -> Option<Value> {
    let mut parts = word.split('-');
    let (year, month, day) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || year.len() != 4 || month.len() != 2 || day.len() != 2 {
        return None;
    }
    let (year, month, day): (i32, u8, u8) =
        (year.parse().ok()?, month.parse().ok()?, day.parse().ok()?);
    ((1..=12).contains(&month) && (1..=31).contains(&day)).then_some(Value::Date {
        year: Some(year),
        month: Some(month),
        day: Some(day),
    })
}

/// "20/07/1969" or "07/20/1969" as a date: the day is the part above 12; when both parts
/// could be the month, only the year is read.
fn slashed_date(word: &str) -> Option<Value> {
    let mut parts = word.split('/');
    let (first, second, year) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || year.len() != 4 || first.len() > 2 || second.len() > 2 {
        return None;
    }
    let (first, second, year): (u8, u8, i32) =
        (first.parse().ok()?, second.parse().ok()?, year.parse().ok()?);
    let valid = |day: u8, month: u8| (1..=31).contains(&day) && (1..=12).contains(&month);
    let (month, day) = match (first > 12, second > 12) {
        (true, false) if valid(first, second) => (Some(second), Some(first)),
        (false, true) if valid(second, first) => (Some(first), Some(second)),
        (false, false) if first >= 1 && second >= 1 => (None, None),
        _ => return None,
    };
    Some(Value::Date { year: Some(year), month, day })
}

/// A number read at a token.
struct NumberAt {
    value: f64,
    suffix: String,
    /// Written in digits.
    digits: bool,
    /// A following "million" multiplies it ("2.5 million"; not "a million" after a suffix).
    multipliable: bool,
    /// "200-250" in one token.
    range: Option<(f64, f64)>,
}

/// The number at token `index` (digits, or number words such as "two hundred and twelve"),
/// and its last token.
fn number_at(tokens: &[Token], index: usize) -> Option<(NumberAt, usize)> {
    let token = tokens.get(index)?;
    let word = token.lower.as_str();
    if let Some((low, high)) = word.split_once(['-', '–'])
        && let (Some((low, "")), Some((high, ""))) = (digits(low), digits(high))
        && !(low.fract() == 0.0 && high.fract() == 0.0 && word.len() == 10)
    {
        return Some((
            NumberAt {
                value: low,
                suffix: String::new(),
                digits: true,
                multipliable: false,
                range: Some((low, high)),
            },
            index,
        ));
    }
    if let Some((value, suffix)) = digits(word) {
        let multipliable = suffix.is_empty();
        return Some((
            NumberAt { value, suffix: suffix.to_owned(), digits: true, multipliable, range: None },
            index,
        ));
    }
    // "father-of-three", "mother-of-two": how many children.
    if let Some((parent, count)) = word.split_once("-of-")
        && matches!(
            parent,
            "father" | "mother" | "parent" | "dad" | "mum" | "mom" | "grandfather" | "grandmother"
        )
        && let Some(value) = small_number(count).or_else(|| count.parse().ok())
    {
        let suffix = "-child".to_owned();
        let number = NumberAt { value, suffix, digits: false, multipliable: false, range: None };
        return Some((number, index));
    }
    // "three-years-old", "five-mile": a number word with a unit joined on.
    if small_number(word).is_none()
        && let Some((head, tail)) = word.split_once('-')
        && let Some(value) = small_number(head)
    {
        let suffix = format!("-{tail}");
        let number = NumberAt { value, suffix, digits: false, multipliable: false, range: None };
        return Some((number, index));
    }
    // Words: "one" only where it counts something ("one of", "no one" count nothing).
    let mut value = small_number(word)?;
    if word == "one" {
        let previous = index.checked_sub(1).map_or("", |at| tokens[at].lower.as_str());
        let next = tokens.get(index + 1).map_or("", |t| t.lower.as_str());
        if matches!(
            previous,
            "no" | "any"
                | "every"
                | "each"
                | "the"
                | "this"
                | "that"
                | "which"
                | "someone"
                | "anyone"
        ) || matches!(
            next,
            "of" | "another" | "day" | "time" | "point" | "who" | "that" | "which"
        ) || next.is_empty()
        {
            return None;
        }
    }
    let mut last = index;
    let mut total = 0.0;
    loop {
        let next = tokens.get(last + 1).filter(|t| t.sentence == token.sentence);
        match next.map(|t| t.lower.as_str()) {
            Some("hundred") => {
                value *= 100.0;
                last += 1;
            }
            Some("and")
                if tokens.get(last + 2).and_then(|t| small_number(&t.lower)).is_some()
                    && value >= 100.0 =>
            {
                value += small_number(&tokens[last + 2].lower).unwrap_or(0.0);
                last += 2;
            }
            Some(w) if small_number(w).is_some() && value >= 100.0 && value % 100.0 == 0.0 => {
                value += small_number(w).unwrap_or(0.0);
                last += 1;
            }
            Some("thousand") | Some("million") | Some("billion") | Some("trillion") => {
                let times =
                    lexicon::multiplier(next.map_or("", |t| t.lower.as_str())).unwrap_or(1.0);
                total += value * times;
                value = 0.0;
                last += 1;
                match tokens
                    .get(last + 1)
                    .filter(|t| t.sentence == token.sentence)
                    .and_then(|t| small_number(&t.lower))
                {
                    Some(more) => {
                        value = more;
                        last += 1;
                    }
                    None => break,
                }
            }
            _ => break,
        }
    }
    Some((
        NumberAt {
            value: total + value,
            suffix: String::new(),
            digits: false,
            multipliable: false,
            range: None,
        },
        last,
    ))
}

/// "a-year", "per-month": a hyphenated tail saying how often a sum is paid.
fn per_period(tail: &str) -> bool {
    matches!(tail.split_once('-'), Some(("a" | "per", "year" | "month" | "week" | "day")))
}

/// The age a unit of time gives with "old" after it ("seven years old").
fn age_unit(unit: &str) -> Option<&'static str> {
    Some(match unit {
        "year" => "year-old",
        "month" => "month-old",
        "week" => "week-old",
        "day" => "day-old",
        _ => return None,
    })
}

/// The unit a hyphenated tail gives a number: ages meet ("30-year-old", "three-years-old"),
/// known units are normalised ("5-mile"), any other tail stands as it is ("3-bedroom").
fn hyphen_unit(tail: &str) -> &'static str {
    let head = tail.split('-').next().unwrap_or(tail);
    if tail.ends_with("-old") {
        return match head {
            "year" | "years" => "year-old",
            "month" | "months" => "month-old",
            "week" | "weeks" => "week-old",
            "day" | "days" => "day-old",
            _ => "age",
        };
    }
    if head == "child" {
        return "child";
    }
    lexicon::unit(head).unwrap_or("other")
}
