//! Dates: ISO and slashed dates, and a month with its day and year ("20 July 1969",
//! "July 20, 1969"). Read first: their days and years are no plain numbers.

use super::*;

impl Reader<'_, '_> {
    /// Takes the dates, marking their tokens used: read first, as their days and years are no
    /// plain numbers.
    pub(super) fn dates(&mut self) {
        let Reader { parsed, used, out, .. } = self;
        let parsed: &Parsed = parsed;
        let tokens = &parsed.tokens;
        let fact = |value: Value, from: usize, to: usize| make_fact(tokens, value, from, to);
        let same_sentence = |a: usize, b: usize| tokens[a].sentence == tokens[b].sentence;
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
    }
}

pub(super) fn month_token(token: &Token) -> Option<u8> {
    // "may" and "march" are verbs too: a month is capitalised.
    if token.capitalised { lexicon::month(&token.lower) } else { None }
}

pub(super) fn day_of(token: Option<&Token>) -> Option<u8> {
    let token = token?;
    let word = token.lower.trim_end_matches(['s', 't', 'n', 'd', 'r', 'h']);
    let day: u8 = word.parse().ok()?;
    (1..=31).contains(&day).then_some(day)
}

pub(super) fn year_of(token: Option<&Token>) -> Option<i32> {
    let token = token?;
    let value: i32 = token.lower.parse().ok()?;
    (token.lower.len() == 4 && (1000..=2100).contains(&value)).then_some(value)
}

pub(super) fn is_year(value: f64, word: &str) -> bool {
    value.fract() == 0.0 && (1000.0..=2100.0).contains(&value) && word.len() == 4
}

/// "2020-11-18" as a date.
pub(super) fn iso_date(word: &str) -> Option<Value> {
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
pub(super) fn slashed_date(word: &str) -> Option<Value> {
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
