//! Numbers with their unit, the noun they count, qualifier ("about", "more than") and range,
//! normalised ("1,000", "one thousand", "1k"); telephone numbers and codes state none.

use super::dates::is_year;
use super::*;

impl Reader<'_, '_> {
    /// Takes the numbers among the tokens no date took, marking the nouns they count.
    pub(super) fn numbers(&mut self) {
        let Reader { parsed, used, counted, out } = self;
        let parsed: &Parsed = parsed;
        let tokens = &parsed.tokens;
        let fact = |value: Value, from: usize, to: usize| make_fact(tokens, value, from, to);
        let same_sentence = |a: usize, b: usize| tokens[a].sentence == tokens[b].sentence;
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
                tokens.get(at).is_some_and(|t| {
                    !t.lower.is_empty() && t.lower.bytes().all(|b| b.is_ascii_digit())
                })
            };
            let spaced = |a: usize, b: usize| parsed.text[tokens[a].end..tokens[b].start] == *" ";
            if code(index)
                && ((word.len() >= 3 && word.starts_with('0'))
                    || (code(index + 1)
                        && spaced(index, index + 1)
                        && same_sentence(index, index + 1)))
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
                } else if let Some(u) =
                    suffix.split_once('-').and_then(|(head, _)| lexicon::unit(head))
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
                if let Some(u) = two.as_deref().and_then(lexicon::unit).filter(|u| *u == "percent")
                {
                    unit = Some(u);
                    to = next + 1;
                } else if let Some(u) =
                    lexicon::unit(after).filter(|_| unit.is_none() && after != "in")
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
                    noun = Some(crate::facts::singular(after));
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
            out.push(fact(
                Value::Number { value, upper, unit, noun, qualifier, ordinal },
                from,
                to,
            ));
            index = to + 1;
        }
    }
}

pub(super) fn small_number(word: &str) -> Option<f64> {
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
pub(super) fn digits(word: &str) -> Option<(f64, &str)> {
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

/// A number read at a token.
pub(super) struct NumberAt {
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
pub(super) fn number_at(tokens: &[Token], index: usize) -> Option<(NumberAt, usize)> {
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
            // "one in 30 pupils" is a share, stated by its second number.
            || next == "in"
                && tokens.get(index + 2).is_some_and(|t| {
                    // Not a year ("one in 2019"); "one in 1,000" is a share.
                    t.lower.replace(',', "").parse::<u64>().is_ok_and(|n| {
                        !(1800..=2100).contains(&n) || t.lower.contains(',')
                    }) || small_number(&t.lower).is_some()
                })
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
pub(super) fn per_period(tail: &str) -> bool {
    matches!(tail.split_once('-'), Some(("a" | "per", "year" | "month" | "week" | "day")))
}

/// The age a unit of time gives with "old" after it ("seven years old").
pub(super) fn age_unit(unit: &str) -> Option<&'static str> {
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
pub(super) fn hyphen_unit(tail: &str) -> &'static str {
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
