//! Words of figures and of time: number words, units and their measures, months, days of the
//! week, words naming a stretch of time, and the words that qualify a number ("about", "more
//! than").

/// Cardinal number words below twenty, by value.
pub const SMALL_NUMBERS: &[&str] = &[
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
];

/// Tens, from twenty (index 0) to ninety.
pub const TENS: &[&str] =
    &["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"];

/// Words (and abbreviations) that multiply the number before them.
pub fn multiplier(word: &str) -> Option<f64> {
    Some(match word {
        "hundred" => 1e2,
        "thousand" | "k" => 1e3,
        "million" | "millions" | "m" | "mn" => 1e6,
        "billion" | "billions" | "bn" | "b" => 1e9,
        "trillion" | "trillions" | "tn" => 1e12,
        "dozen" => 12.0,
        _ => return None,
    })
}

/// Month names and abbreviations, 1-based.
pub fn month(word: &str) -> Option<u8> {
    let month = match word.trim_end_matches('.') {
        "january" | "jan" => 1,
        "february" | "feb" => 2,
        "march" | "mar" => 3,
        "april" | "apr" => 4,
        "may" => 5,
        "june" | "jun" => 6,
        "july" | "jul" => 7,
        "august" | "aug" => 8,
        "september" | "sep" | "sept" => 9,
        "october" | "oct" => 10,
        "november" | "nov" => 11,
        "december" | "dec" => 12,
        _ => return None,
    };
    Some(month)
}

/// A word naming a stretch of time or a day ("week", "Wednesday", "summer"): "last" before
/// it says when, not a rank.
pub fn is_time_word(word: &str) -> bool {
    matches!(
        word,
        "year"
            | "years"
            | "month"
            | "months"
            | "week"
            | "weeks"
            | "weekend"
            | "day"
            | "days"
            | "night"
            | "nights"
            | "time"
            | "season"
            | "summer"
            | "winter"
            | "spring"
            | "autumn"
            | "fall"
            | "term"
            | "decade"
            | "century"
            | "hour"
            | "minute"
            | "monday"
            | "tuesday"
            | "wednesday"
            | "thursday"
            | "friday"
            | "saturday"
            | "sunday"
            | "christmas"
            | "easter"
    )
}

pub fn unit(word: &str) -> Option<&'static str> {
    Some(match word {
        "%" | "percent" | "per cent" | "pc" | "percentage" => "percent",
        "m" | "metre" | "metres" | "meter" | "meters" => "metre",
        "km" | "kilometre" | "kilometres" | "kilometer" | "kilometers" => "kilometre",
        "cm" | "centimetre" | "centimetres" | "centimeter" | "centimeters" => "centimetre",
        "mm" | "millimetre" | "millimetres" | "millimeter" | "millimeters" => "millimetre",
        "mile" | "miles" | "mi" => "mile",
        "ft" | "foot" | "feet" => "foot",
        "in" | "inch" | "inches" => "inch",
        "yard" | "yards" => "yard",
        "kg" | "kilogram" | "kilograms" | "kilo" | "kilos" => "kilogram",
        "g" | "gram" | "grams" => "gram",
        "lb" | "lbs" | "pound" | "pounds" => "pound",
        "tonne" | "tonnes" | "ton" | "tons" => "tonne",
        "$" | "dollar" | "dollars" | "usd" => "dollar",
        "£" | "sterling" | "gbp" => "pound-sterling",
        "€" | "euro" | "euros" | "eur" => "euro",
        "year" | "years" | "yr" | "yrs" => "year",
        "month" | "months" => "month",
        "week" | "weeks" => "week",
        "day" | "days" => "day",
        "hour" | "hours" | "hr" | "hrs" => "hour",
        "minute" | "minutes" | "min" | "mins" => "minute",
        "second" | "seconds" | "sec" | "secs" => "second",
        "am" | "a.m." => "am",
        "pm" | "p.m." => "pm",
        "mph" => "mph",
        "km/h" | "kph" => "km/h",
        "°c" | "celsius" | "degrees" | "degree" => "degree",
        _ => return None,
    })
}

/// What a unit measures and how many of that measure's base unit it holds (metres, grams,
/// seconds, km/h): "212 metres" and "696 feet" state one height. Units of money, calendar
/// spans and ages are not converted.
pub fn measure(unit: &str) -> Option<(&'static str, f64)> {
    Some(match unit {
        "metre" => ("length", 1.0),
        "kilometre" => ("length", 1000.0),
        "centimetre" => ("length", 0.01),
        "millimetre" => ("length", 0.001),
        "mile" => ("length", 1609.344),
        "foot" => ("length", 0.3048),
        "inch" => ("length", 0.0254),
        "yard" => ("length", 0.9144),
        "gram" => ("mass", 1.0),
        "kilogram" => ("mass", 1000.0),
        "pound" => ("mass", 453.592_37),
        "tonne" => ("mass", 1_000_000.0),
        "week" => ("time", 604_800.0),
        "day" => ("time", 86_400.0),
        "hour" => ("time", 3600.0),
        "minute" => ("time", 60.0),
        "second" => ("time", 1.0),
        "mph" => ("speed", 1.609_344),
        "km/h" => ("speed", 1.0),
        _ => return None,
    })
}

/// Figures converted from one unit to another are rounded ("212 metres (696 ft)", "5 km (3.1
/// miles)"): they agree within this share.
pub const CONVERTED: f64 = 0.02;

/// Words before a number that make it approximate or a bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Qualifier {
    /// "about", "around", "nearly", "some": within [`crate::facts::extract::APPROXIMATE`] of the value.
    About,
    /// "more than", "over", "at least": the true value is above (or at) it.
    AtLeast,
    /// "less than", "under", "up to", "at most": the true value is below (or at) it.
    AtMost,
}

/// The qualifier a word (or the last two words) before a number gives it.
pub fn qualifier(previous: &str, before_previous: &str) -> Option<Qualifier> {
    match (before_previous, previous) {
        ("more" | "greater" | "higher", "than") | ("at", "least") => Some(Qualifier::AtLeast),
        ("less" | "fewer" | "lower", "than") | ("at", "most") | ("up", "to") => {
            Some(Qualifier::AtMost)
        }
        (_, "over" | "above" | "exceeding" | "upwards") => Some(Qualifier::AtLeast),
        (_, "under" | "below") => Some(Qualifier::AtMost),
        (_, "about" | "around" | "approximately" | "roughly" | "some" | "circa" | "c." | "ca.")
        | (_, "approx" | "approx." | "~" | "estimated" | "almost" | "nearly") => {
            Some(Qualifier::About)
        }
        _ => None,
    }
}

/// Whether `word` (lower-cased) names a day of the week: a closed-set term, never a name.
pub fn is_weekday(word: &str) -> bool {
    matches!(
        word,
        "monday" | "tuesday" | "wednesday" | "thursday" | "friday" | "saturday" | "sunday"
    )
}
