//! How two facts compare: numbers (units, bounds, rounding), dates and names.

use std::collections::HashSet;

use super::extract::{self, Fact, Parsed, Value};
use super::lexicon::{self, Qualifier};
use super::{content, singular};

pub(super) fn close(a: f64, b: f64, tolerance: f64) -> bool {
    let scale = a.abs().max(b.abs()).max(1e-9);
    (a - b).abs() / scale <= tolerance
}

/// A year read as a number on one side ("2012 campaign": a year before a noun) and as a date
/// on the other ("2012 re-election") is the same year.
pub(super) fn same_year(a: &Value, b: &Value) -> bool {
    let year = |number: &Value| match number {
        Value::Number {
            value, upper: None, unit: None, qualifier: None, ordinal: false, ..
        } if value.fract() == 0.0 && (1000.0..=2100.0).contains(value) => Some(*value as i32),
        _ => None,
    };
    let date = |value: &Value| match value {
        Value::Date { year: Some(year), month: None, day: None } => Some(*year),
        _ => None,
    };
    matches!((year(a), date(b)), (Some(x), Some(y)) if x == y)
        || matches!((date(a), year(b)), (Some(x), Some(y)) if x == y)
}

/// How far a figure may be from what it rounds, relative to it: half the place of its last
/// significant digit (3 → 0.5 / 3; 696 → 0.5 / 696; 4.5 → 0.05 / 4.5).
fn rounding(value: f64) -> f64 {
    let value = value.abs();
    if value == 0.0 || !value.is_finite() {
        return 0.0;
    }
    let mut place = 10f64.powi(value.log10().floor() as i32);
    while place > 1e-6 && ((value / place).round() * place - value).abs() > value * 1e-9 {
        place /= 10.0;
    }
    0.5 * place / value
}

/// Whether the claim number `claim` is what the premise number `premise` says.
pub(super) fn numbers_agree(claim: &Value, premise: &Value) -> bool {
    let (
        Value::Number {
            value: a, upper: a_up, unit: a_unit, qualifier: a_q, ordinal: a_ord, ..
        },
        Value::Number {
            value: b, upper: b_up, unit: b_unit, qualifier: b_q, ordinal: b_ord, ..
        },
    ) = (claim, premise)
    else {
        return false;
    };
    if a_ord != b_ord {
        return false;
    }
    if let (Some(x), Some(y)) = (a_unit, b_unit)
        && x != y
    {
        // "5 km" and "5,000 metres": the same measure in other units.
        return match (lexicon::measure(x), lexicon::measure(y)) {
            (Some((one, scale)), Some((other, other_scale))) if one == other => {
                let (x, y) = (*a * scale, *b * other_scale);
                let about =
                    matches!(a_q, Some(Qualifier::About)) || matches!(b_q, Some(Qualifier::About));
                // A claim may round what it converts, as far as it is written: "3 miles" for
                // 5 km is 4.8 km said to the nearest mile ("150 minutes" for 2 hours is not).
                let tolerance =
                    if about { extract::APPROXIMATE } else { lexicon::CONVERTED.max(rounding(*a)) };
                let (a, b) = (&x, &y);
                match (a_q, b_q) {
                    (Some(Qualifier::AtLeast), _) => *b >= *a * (1.0 - tolerance),
                    (Some(Qualifier::AtMost), _) => *b <= *a * (1.0 + tolerance),
                    (_, Some(Qualifier::AtLeast)) => *a >= *b * (1.0 - tolerance),
                    (_, Some(Qualifier::AtMost)) => *a <= *b * (1.0 + tolerance),
                    _ => close(*a, *b, tolerance),
                }
            }
            _ => false,
        };
    }
    // Rounding leaves large figures a little apart ("1.84 million" for 1,841,000); whole
    // numbers under ten thousand (counts, ages, years: 2005 is not 2007) are said exactly.
    let whole = |x: f64| x.fract() == 0.0 && x.abs() < 10_000.0;
    let tolerance =
        if matches!(a_q, Some(Qualifier::About)) || matches!(b_q, Some(Qualifier::About)) {
            extract::APPROXIMATE
        } else if whole(*a) && whole(*b) {
            0.0
        } else {
            0.005
        };
    let within = |value: f64, low: f64, high: f64| {
        value >= low * (1.0 - tolerance) && value <= high * (1.0 + tolerance)
    };
    // A number inside a range or under a bound agrees only where it says what it counts if the
    // range or bound does: "up to 20 per cent" is not a bare "16" of something else.
    let claim_bounds = !(a_unit.is_some() && b_unit.is_none());
    let premise_bounds = !(b_unit.is_some() && a_unit.is_none());
    match (a_up, b_up) {
        // Two ranges agree where their ends do ("8-13lbs" is not "8-10lbs").
        (Some(high), Some(b_high)) => close(*a, *b, tolerance) && close(*high, *b_high, tolerance),
        (Some(high), None) => claim_bounds && within(*b, *a, *high),
        (None, Some(high)) => premise_bounds && within(*a, *b, *high),
        (None, None) => match (a_q, b_q) {
            // The same bound restated with another figure is another figure: "more than 80
            // lawmakers" does not restate "more than 130 lawmakers".
            (Some(Qualifier::AtLeast), Some(Qualifier::AtLeast))
            | (Some(Qualifier::AtMost), Some(Qualifier::AtMost)) => close(*a, *b, tolerance),
            (Some(Qualifier::AtLeast), _) => {
                claim_bounds && *b >= *a * (1.0 - tolerance) || close(*a, *b, tolerance)
            }
            (Some(Qualifier::AtMost), _) => {
                claim_bounds && *b <= *a * (1.0 + tolerance) || close(*a, *b, tolerance)
            }
            (_, Some(Qualifier::AtLeast)) => {
                premise_bounds && *a >= *b * (1.0 - tolerance) || close(*a, *b, tolerance)
            }
            (_, Some(Qualifier::AtMost)) => {
                premise_bounds && *a <= *b * (1.0 + tolerance) || close(*a, *b, tolerance)
            }
            _ => close(*a, *b, tolerance),
        },
    }
}

/// A number with neither unit nor counted noun ("Rone Odendaal, 24, …").
pub(super) fn bare(value: &Value) -> bool {
    matches!(value, Value::Number { unit: None, noun: None, ordinal: false, .. })
}

/// An age ("30-year-old"): what a bare number after a name usually is ("Lippert, 42,").
pub(super) fn age(value: &Value) -> bool {
    matches!(value, Value::Number { unit: Some("year-old"), .. })
}

/// What a number counts: its unit, the noun after it, whether it is an ordinal.
pub(super) type Counts<'v> = (Option<&'static str>, Option<&'v str>, bool);

pub(super) fn counts(value: &Value) -> Option<Counts<'_>> {
    match value {
        Value::Number { unit, noun, ordinal, .. } => Some((*unit, noun.as_deref(), *ordinal)),
        _ => None,
    }
}

/// Whether two numbers count the same thing, so that different values conflict.
pub(super) fn numbers_comparable(claim: &Value, premise: &Value) -> bool {
    let (Some((a_unit, a_noun, a_ord)), Some((b_unit, b_noun, b_ord))) =
        (counts(claim), counts(premise))
    else {
        return false;
    };
    a_ord == b_ord
        && match (a_unit, b_unit) {
            (Some(x), Some(y)) => {
                x == y
                    || matches!((lexicon::measure(x), lexicon::measure(y)),
                        (Some((one, _)), Some((other, _))) if one == other)
            }
            (None, None) => {
                a_noun.is_some() && a_noun == b_noun || a_noun.is_none() && b_noun.is_none()
            }
            _ => false,
        }
}

/// Numbers that may count the same thing, one side not saying what it counts (no unit, or
/// a noun on one side only: "1.5 million since …" against "0.8 million likes"): they
/// conflict only where their neighbours agree.
pub(super) fn loosely_comparable(claim: &Value, premise: &Value) -> bool {
    let (Some((a_unit, a_noun, a_ord)), Some((b_unit, b_noun, b_ord))) =
        (counts(claim), counts(premise))
    else {
        return false;
    };
    a_ord == b_ord
        && match (a_unit, b_unit) {
            (Some(_), Some(_)) => false,
            (None, None) => a_noun.is_none() || b_noun.is_none() || a_noun == b_noun,
            (Some(_), None) => b_noun.is_none(),
            (None, Some(_)) => a_noun.is_none(),
        }
}

pub(super) fn dates_agree(claim: &Value, premise: &Value) -> bool {
    match (claim, premise) {
        (
            Value::Date { year: ay, month: am, day: ad },
            Value::Date { year: by, month: bm, day: bd },
        ) => {
            let same = |a: &Option<i32>, b: &Option<i32>| a.zip(*b).is_none_or(|(a, b)| a == b);
            let shared = ay.is_some() && by.is_some() || am.is_some() && bm.is_some();
            shared
                && same(ay, by)
                && same(&am.map(i32::from), &bm.map(i32::from))
                && same(&ad.map(i32::from), &bd.map(i32::from))
        }
        // A year written as a plain number ("the 1889 fair" read as a count).
        (Value::Date { year: Some(year), .. }, Value::Number { value, .. }) => {
            *value == f64::from(*year)
        }
        _ => false,
    }
}

pub(super) fn dates_comparable(claim: &Value, premise: &Value) -> bool {
    match (claim, premise) {
        (Value::Date { year: ay, month: am, .. }, Value::Date { year: by, month: bm, .. }) => {
            ay.is_some() && by.is_some() || am.is_some() && bm.is_some()
        }
        _ => false,
    }
}

/// Whether the names `a` and `b` name the same thing: one's words all among the other's, or
/// one an initialism of the other.
pub(super) fn names_match(a: &[String], b: &[String]) -> bool {
    // Words meet when equal; when, both of five letters or more, one is the other with an
    // ending ("Indonesia", "Indonesian"); or when, both of six letters or more and of one
    // first letter, one is the other misspelt (Damerau-Levenshtein similarity at least 0.8:
    // "Soumbadze", "Soumbadse"; not "Obama" and "Osama", "Gambia" and "Zambia").
    // A short form of four letters or more ("Alex" for "Alexander", "Jess" for "Jessica"), and
    // a people named for its place ("Mexican" for "Mexico", "British" for "Britain"): the two
    // share all but the last three letters of each, the longer ending as such words do.
    let short_form = |x: &str, y: &str| {
        let (short, long) = if x.len() <= y.len() { (x, y) } else { (y, x) };
        short.len() >= 4 && long.len() >= short.len() + 2 && long.starts_with(short)
    };
    let demonym = |x: &str, y: &str| {
        let shared = x.chars().zip(y.chars()).take_while(|(a, b)| a == b).count();
        let long = if x.len() >= y.len() { x } else { y };
        shared >= 4
            && x.chars().count() <= shared + 3
            && y.chars().count() <= shared + 3
            && ["an", "ese", "ish", "i", "ic"].iter().any(|ending| long.ends_with(ending))
    };
    let meets = |x: &str, y: &str| {
        x == y
            // "UV" for "UV-C": a word and its form with a letter or a figure hyphened on.
            || hyphened_on(x, y)
            || hyphened_on(y, x)
            || short_form(x, y)
            || demonym(x, y)
            || x.len() >= 5 && y.len() >= 5 && (x.starts_with(y) || y.starts_with(x))
            || x.len() >= 6
                && y.len() >= 6
                && x.chars().next() == y.chars().next()
                && strsim::normalized_damerau_levenshtein(x, y) >= 0.8
    };
    // A title or a possessive ending names no one: "President Obama's" is "Barack Obama".
    let bare = |x: &[String]| -> Vec<String> {
        let words: Vec<String> = x
            .iter()
            .map(|word| singular(word.trim_end_matches("'s").trim_end_matches("’s")))
            .collect();
        let named: Vec<String> =
            words.iter().filter(|word| !lexicon::is_title(word)).cloned().collect();
        if named.is_empty() { words } else { named }
    };
    let subset =
        |x: &[String], y: &[String]| x.iter().all(|word| y.iter().any(|other| meets(word, other)));
    let initials = |short: &[String], long: &[String]| {
        short.len() == 1
            && long.len() > 1
            && short[0].chars().count() == long.len()
            && short[0].chars().zip(long).all(|(c, word)| word.starts_with(c))
    };
    // "South West Airlines" and "Southwest Airlines".
    let joined = |x: &[String]| x.concat();
    let same = |a: &[String], b: &[String]| {
        subset(a, b) || subset(b, a) || initials(a, b) || initials(b, a) || joined(a) == joined(b)
    };
    same(a, b) || same(&bare(a), &bare(b))
}

/// Whether `long` is `short` with one letter or a figure hyphened on ("uv-c", "f-16"; not
/// "mary-jo").
fn hyphened_on(long: &str, short: &str) -> bool {
    long.strip_prefix(short).and_then(|rest| rest.strip_prefix('-')).is_some_and(|tail| {
        tail.chars().count() == 1 || !tail.is_empty() && tail.chars().all(|c| c.is_ascii_digit())
    })
}

/// The content words within three words of `fact` on either side, in its sentence, and, where
/// a clause set off after it ends ([`aside_end`]), the three words past that clause ("Angela,
/// who weighs only 16 lbs., celebrated her first birthday": what is said of Angela).
pub(super) fn neighbours(parsed: &Parsed, fact: &Fact) -> HashSet<String> {
    let range = &parsed.sentences[fact.sentence];
    let last = parsed.tokens[fact.token..range.end]
        .iter()
        .position(|token| token.end >= fact.end)
        .map_or(fact.token, |offset| fact.token + offset);
    let before = fact.token.saturating_sub(3).max(range.start)..fact.token;
    let after = (last + 1).min(range.end)..(last + 4).min(range.end);
    let mut words = content(&parsed.tokens[before]);
    words.extend(content(&parsed.tokens[after]));
    if let Some(end) = aside_end(parsed, last + 1) {
        words.extend(content(&parsed.tokens[end..(end + 3).min(range.end)]));
    }
    words
}

/// Whether the text between two words is a dash with spaces around it (" – "; not the "–" of
/// "1990–1995").
fn spaced_dash(gap: &str) -> bool {
    gap.starts_with(char::is_whitespace)
        && gap.ends_with(char::is_whitespace)
        && matches!(gap.trim(), "-" | "–" | "—")
}

/// Where a clause set off after a word, and opening at token `from`, ends: the token after it,
/// within eight words and in the same sentence (a clause the sentence's end closes is not
/// found). The clause is one in brackets ("Baby L (above in utero) weighed": "weighed"; it
/// ends at the first closing bracket), or, set off by a comma or a spaced dash and closed by
/// the next, a relative clause, a caption's "pictured", an age or where someone is from
/// ("Angela, who weighs only 16 lbs., celebrated": "celebrated"). A list's next item opens no
/// clause ("twins, Cleo and Harrison, into their family"), nor does a clause opening with an
/// article ("After the match against Leeds, the manager resigned, the club said"). None when
/// no such clause opens there.
pub(super) fn aside_end(parsed: &Parsed, from: usize) -> Option<usize> {
    let first = parsed.tokens.get(from)?;
    if from == 0 || parsed.tokens[from - 1].sentence != first.sentence {
        return None;
    }
    let gap = |at: usize| parsed.slice(parsed.tokens[at - 1].end, parsed.tokens[at].start);
    let opens = gap(from);
    let clause = matches!(
        first.lower.as_str(),
        "who" | "whom" | "whose" | "which" | "pictured" | "aged" | "from"
    );
    let closes: fn(&str) -> bool = match opens.trim() {
        "(" => |gap| gap.contains(')'),
        "[" => |gap| gap.contains(']'),
        "," if clause => |gap| gap.contains(','),
        _ if clause && spaced_dash(opens) => |gap| gap.contains(',') || spaced_dash(gap),
        _ => return None,
    };
    (from + 1..(from + 9).min(parsed.tokens.len()))
        .take_while(|&at| parsed.tokens[at].sentence == first.sentence)
        .find(|&at| closes(gap(at)))
}
