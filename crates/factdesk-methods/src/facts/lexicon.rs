//! The word lists fact alignment reads: number words, units, months, negation cues, words
//! that qualify a number, and the closed sets whose members exclude each other.

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

/// A unit in one spelling: plurals, abbreviations and British / American spellings meet.
/// A title before a name ("President", "Dr", "Sgt"), lower-cased: it says who someone is,
/// not which one.
pub fn is_title(word: &str) -> bool {
    matches!(
        word,
        "president"
            | "vice"
            | "prime"
            | "minister"
            | "mr"
            | "mrs"
            | "ms"
            | "miss"
            | "dr"
            | "doctor"
            | "sir"
            | "dame"
            | "lord"
            | "lady"
            | "queen"
            | "king"
            | "prince"
            | "princess"
            | "senator"
            | "sen"
            | "rep"
            | "governor"
            | "gov"
            | "mayor"
            | "judge"
            | "justice"
            | "officer"
            | "sgt"
            | "sergeant"
            | "lt"
            | "lieutenant"
            | "captain"
            | "capt"
            | "colonel"
            | "col"
            | "general"
            | "gen"
            | "detective"
            | "det"
            | "constable"
            | "pc"
            | "chancellor"
            | "pope"
            | "rev"
            | "reverend"
            | "father"
            | "professor"
            | "prof"
            | "chief"
            | "secretary"
            | "ambassador"
            | "archbishop"
            | "bishop"
            | "saint"
            | "st"
            | "coach"
            | "manager"
    )
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
    /// "about", "around", "nearly", "some": within [`super::extract::APPROXIMATE`] of the value.
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

/// A closed set of words whose members exclude each other, each member in all its forms.
pub struct ClosedSet {
    pub name: &'static str,
    pub members: &'static [&'static [&'static str]],
    /// Whether a capitalised form counts ("Western Australia" states a direction; "White"
    /// in a name states no colour).
    pub capitalised: bool,
}

/// The closed sets. A claim word of a set that the premise does not hold, where the premise
/// holds another member of the same set, is stated differently there.
pub const CLOSED_SETS: &[ClosedSet] = &[
    ClosedSet {
        name: "direction",
        members: &[
            &["north", "northern", "northward", "northwards", "northerly"],
            &["south", "southern", "southward", "southwards", "southerly"],
            &["east", "eastern", "eastward", "eastwards", "easterly"],
            &["west", "western", "westward", "westwards", "westerly"],
        ],
        capitalised: true,
    },
    ClosedSet {
        name: "ordinal",
        members: &[
            &["first", "1st"],
            &["second", "2nd"],
            &["third", "3rd"],
            &["fourth", "4th"],
            &["fifth", "5th"],
            &["sixth", "6th"],
            &["seventh", "7th"],
            &["eighth", "8th"],
            &["ninth", "9th"],
            &["tenth", "10th"],
            &["last", "final"],
        ],
        capitalised: false,
    },
    ClosedSet {
        name: "material",
        members: &[
            &["iron", "wrought-iron", "cast-iron"],
            &["steel", "stainless"],
            &["concrete"],
            &["wood", "wooden", "timber"],
            &["stone", "limestone", "sandstone"],
            &["brick", "bricks"],
            &["glass"],
            &["marble"],
            &["granite"],
            &["gold", "golden"],
            &["silver"],
            &["copper"],
            &["bronze"],
            &["aluminium", "aluminum"],
            &["plastic"],
        ],
        capitalised: false,
    },
    ClosedSet {
        name: "colour",
        members: &[
            &["red"],
            &["blue"],
            &["green"],
            &["yellow"],
            &["black"],
            &["white"],
            &["orange"],
            &["purple"],
            &["pink"],
            &["brown"],
            &["grey", "gray"],
        ],
        capitalised: false,
    },
    ClosedSet {
        name: "weekday",
        members: &[
            &["monday"],
            &["tuesday"],
            &["wednesday"],
            &["thursday"],
            &["friday"],
            &["saturday"],
            &["sunday"],
        ],
        capitalised: true,
    },
    ClosedSet {
        name: "change",
        members: &[
            &[
                "rose",
                "rise",
                "rises",
                "risen",
                "rising",
                "increase",
                "increased",
                "increases",
                "increasing",
                "grew",
                "grow",
                "grows",
                "growing",
                "climbed",
                "climb",
                "gained",
                "soared",
                "jumped",
                "surged",
            ],
            &[
                "fell",
                "fall",
                "falls",
                "fallen",
                "falling",
                "decrease",
                "decreased",
                "decreases",
                "decreasing",
                "declined",
                "decline",
                "dropped",
                "drop",
                "shrank",
                "plunged",
                "slumped",
            ],
        ],
        capitalised: false,
    },
    ClosedSet {
        name: "outcome",
        members: &[
            &["won", "win", "wins", "winning", "winner", "victory", "victorious"],
            &["lost", "lose", "loses", "losing", "loser", "defeat", "defeated"],
        ],
        capitalised: false,
    },
    ClosedSet {
        name: "comparison",
        members: &[&["higher", "greater", "larger", "bigger"], &["lower", "fewer", "smaller"]],
        capitalised: false,
    },
    ClosedSet {
        name: "size",
        members: &[&["largest", "biggest", "greatest"], &["smallest", "tiniest", "least"]],
        capitalised: false,
    },
    ClosedSet {
        name: "height",
        members: &[&["highest", "tallest"], &["lowest", "shortest"]],
        capitalised: false,
    },
    ClosedSet { name: "length", members: &[&["longest"], &["shortest"]], capitalised: false },
    ClosedSet {
        name: "age",
        members: &[&["oldest", "eldest"], &["youngest", "newest"]],
        capitalised: false,
    },
    ClosedSet {
        name: "heat",
        members: &[&["hottest", "warmest"], &["coldest", "coolest"]],
        capitalised: false,
    },
    ClosedSet { name: "quality", members: &[&["best"], &["worst"]], capitalised: false },
    ClosedSet {
        name: "life",
        members: &[&["alive", "survived", "survivor"], &["dead", "died", "killed"]],
        capitalised: false,
    },
    ClosedSet {
        name: "verdict",
        members: &[&["guilty", "convicted"], &["innocent", "acquitted", "cleared"]],
        capitalised: false,
    },
    ClosedSet {
        name: "legality",
        members: &[
            &["legal", "allowed", "permitted", "legalised"],
            &["illegal", "banned", "prohibited", "forbidden", "outlawed"],
        ],
        capitalised: false,
    },
    ClosedSet {
        name: "decision",
        members: &[&["accepted", "approved"], &["rejected", "refused", "vetoed"]],
        capitalised: false,
    },
    ClosedSet {
        name: "openness",
        members: &[&["opened", "reopened"], &["closed", "shut"]],
        capitalised: false,
    },
    ClosedSet {
        name: "sex",
        members: &[
            &["man", "men", "male", "males", "boy", "boys"],
            &["woman", "women", "female", "females", "girl", "girls"],
        ],
        capitalised: false,
    },
    ClosedSet {
        name: "child",
        members: &[&["son", "sons"], &["daughter", "daughters"]],
        capitalised: false,
    },
    ClosedSet {
        name: "parent",
        members: &[&["father", "dad"], &["mother", "mum", "mom"]],
        capitalised: false,
    },
    ClosedSet {
        name: "result",
        members: &[&["profit", "profits"], &["loss", "losses"]],
        capitalised: false,
    },
    ClosedSet { name: "access", members: &[&["public"], &["private"]], capitalised: false },
    ClosedSet {
        name: "enclosure",
        members: &[&["inside", "indoors", "indoor"], &["outside", "outdoors", "outdoor"]],
        capitalised: false,
    },
    ClosedSet { name: "origin", members: &[&["foreign"], &["domestic"]], capitalised: false },
    // Relations that read both ways ("his wife" is "her husband"): a rival conflicts only
    // between the same words (`facts::FRAMED_SETS`).
    ClosedSet { name: "sequence", members: &[&["before"], &["after"]], capitalised: false },
    ClosedSet { name: "timing", members: &[&["earlier"], &["later"]], capitalised: false },
    ClosedSet { name: "recency", members: &[&["earliest"], &["latest"]], capitalised: false },
    ClosedSet { name: "amount", members: &[&["more"], &["less"]], capitalised: false },
    ClosedSet {
        name: "spouse",
        members: &[&["husband", "husbands"], &["wife", "wives"]],
        capitalised: false,
    },
    ClosedSet {
        name: "sibling",
        members: &[&["brother", "brothers"], &["sister", "sisters"]],
        capitalised: false,
    },
    ClosedSet {
        name: "trade",
        members: &[
            &["bought", "buy", "buys", "buying", "purchased"],
            &["sold", "sell", "sells", "selling"],
        ],
        capitalised: false,
    },
    ClosedSet { name: "accompaniment", members: &[&["with"], &["without"]], capitalised: false },
    ClosedSet { name: "position", members: &[&["above"], &["below"]], capitalised: false },
    ClosedSet { name: "extreme", members: &[&["top"], &["bottom"]], capitalised: false },
    ClosedSet { name: "limit", members: &[&["maximum"], &["minimum"]], capitalised: false },
    ClosedSet {
        name: "daypart",
        members: &[&["morning", "mornings"], &["evening", "evenings"]],
        capitalised: false,
    },
    ClosedSet {
        name: "movement",
        members: &[
            &["arrived", "arrive", "arrives", "arriving"],
            &["departed", "depart", "departs"],
        ],
        capitalised: false,
    },
    ClosedSet {
        name: "strength",
        members: &[&["strongest", "stronger"], &["weakest", "weaker"]],
        capitalised: false,
    },
    ClosedSet {
        name: "success",
        members: &[&["success", "successful", "succeeded"], &["failure", "unsuccessful", "failed"]],
        capitalised: false,
    },
];

/// Capitalised words that start sentences without naming anything.
pub const NOT_NAMES: &[&str] = &[
    "a",
    "an",
    "the",
    "this",
    "that",
    "these",
    "those",
    "it",
    "its",
    "he",
    "she",
    "they",
    "we",
    "i",
    "you",
    "his",
    "her",
    "their",
    "our",
    "my",
    "your",
    "in",
    "on",
    "at",
    "by",
    "for",
    "from",
    "of",
    "to",
    "with",
    "as",
    "after",
    "before",
    "during",
    "since",
    "until",
    "when",
    "while",
    "where",
    "if",
    "but",
    "and",
    "or",
    "so",
    "yet",
    "although",
    "though",
    "because",
    "however",
    "also",
    "there",
    "here",
    "some",
    "many",
    "most",
    "all",
    "both",
    "each",
    "every",
    "one",
    "two",
    "three",
    "no",
    "not",
    "mr",
    "mrs",
    "ms",
    "dr",
    "prof",
    "sir",
    "st",
    "who",
    "what",
    "which",
    "how",
    "why",
    "despite",
    "under",
    "over",
    "about",
    "around",
    "among",
    "according",
    "last",
    "next",
    "now",
    "then",
    "today",
    "yesterday",
    "meanwhile",
    "other",
    "another",
    "such",
    "only",
    "even",
    "still",
    "just",
    "once",
    "later",
    "earlier",
    "more",
    "less",
    "several",
    "few",
    "police",
    "officials",
    "experts",
    "researchers",
    "scientists",
    "instead",
    "unlike",
    "like",
    "unless",
    "whether",
    "nor",
    "neither",
    "either",
    "indeed",
    "thus",
    "therefore",
    "moreover",
    "furthermore",
    "otherwise",
    "overall",
    "finally",
    "currently",
    "recently",
    "previously",
    "eventually",
    "initially",
    "originally",
    "additionally",
    "unfortunately",
    "fortunately",
    "sadly",
    "luckily",
    "surprisingly",
    "interestingly",
    "similarly",
    "likewise",
    "besides",
    "nevertheless",
    "nonetheless",
    "perhaps",
    "maybe",
    "almost",
    "nearly",
    "already",
    "soon",
    "often",
    "sometimes",
    "always",
    "never",
    "again",
    "together",
    "throughout",
    "within",
    "without",
    "behind",
    "beyond",
    "near",
    "outside",
    "inside",
    "upon",
    "via",
    "tonight",
    "tomorrow",
    "family",
    "friends",
    "witnesses",
    "neighbours",
    "residents",
    "fans",
    "critics",
    "doctors",
    "officers",
    "investigators",
    "authorities",
    "prosecutors",
    "lawyers",
    "parents",
    "people",
    "locals",
    "students",
    "teachers",
    "workers",
];

/// Words joining the parts of one name ("Great Wall of China", "Ludwig van Beethoven").
pub const NAME_JOINERS: &[&str] =
    &["of", "de", "du", "da", "van", "von", "der", "la", "le", "bin", "al", "del"];

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

/// Whether `word` (lower-cased) names a day of the week: a closed-set term, never a name.
pub fn is_weekday(word: &str) -> bool {
    matches!(
        word,
        "monday" | "tuesday" | "wednesday" | "thursday" | "friday" | "saturday" | "sunday"
    )
}

/// Whether `word` (lower-cased) is a preposition a name can stand after ("in Paris", "by
/// Smith"): the slot a name fills ([`super::aligner`]).
pub fn is_preposition(word: &str) -> bool {
    matches!(
        word,
        "in" | "at"
            | "from"
            | "to"
            | "into"
            | "near"
            | "outside"
            | "inside"
            | "across"
            | "by"
            | "with"
            | "for"
            | "of"
            | "on"
            | "off"
            | "via"
            | "through"
            | "against"
            | "between"
            | "under"
            | "over"
            | "towards"
            | "toward"
            | "around"
            | "about"
            | "after"
            | "before"
            | "behind"
            | "beside"
            | "beyond"
            | "within"
            | "without"
            | "throughout"
            | "among"
    )
}

/// Whether `word` (lower-cased) marks a name as a body's: a school, a court, a party, a firm.
pub fn is_body_word(word: &str) -> bool {
    matches!(
        word,
        "school"
            | "schools"
            | "academy"
            | "academies"
            | "university"
            | "college"
            | "department"
            | "council"
            | "police"
            | "hospital"
            | "court"
            | "airlines"
            | "airways"
            | "airline"
            | "party"
            | "church"
            | "club"
            | "bank"
            | "company"
            | "corporation"
            | "group"
            | "agency"
            | "ministry"
            | "office"
            | "service"
            | "foundation"
            | "institute"
            | "trust"
            | "league"
            | "association"
            | "commission"
            | "committee"
            | "government"
            | "parliament"
            | "congress"
            | "senate"
            | "army"
            | "navy"
            | "corps"
            | "fc"
            | "news"
            | "times"
            | "journal"
            | "network"
            | "museum"
            | "union"
            | "inc"
            | "ltd"
            | "plc"
            | "society"
            | "charity"
            | "team"
            | "infirmary"
            | "clinic"
            | "prison"
            | "board"
            | "bureau"
            | "authority"
            | "federation"
            | "organisation"
            | "organization"
    )
}

/// Whether `word` (lower-cased) names a people, a faith or a party as an adjective or its
/// members ("British", "Australians", "Burmese", "Tories"): by its ending where it is long
/// enough not to be a first name ("Russian" but not "Brian" or "Gillian"), else by the list.
pub fn is_people_word(word: &str) -> bool {
    let word = word.strip_suffix('s').filter(|w| w.len() > 4).unwrap_or(word);
    let letters = word.chars().count();
    if matches!(
        word,
        "christian"
            | "sebastian"
            | "gillian"
            | "lillian"
            | "jillian"
            | "killian"
            | "cillian"
            | "kristian"
            | "florian"
            | "maximilian"
            | "damian"
            | "fabian"
            | "vivian"
            | "julian"
            | "adrian"
            | "dorian"
            | "marian"
            | "doreen"
            | "maureen"
            | "kathleen"
            | "eileen"
            | "colleen"
            | "noreen"
            | "duncan"
    ) {
        return false;
    }
    (letters >= 6 && ["ian", "ese", "ish", "ean"].iter().any(|end| word.ends_with(end)))
        || (letters >= 7 && word.ends_with("can"))
        || matches!(
            word,
            "asian"
                | "french"
                | "dutch"
                | "swiss"
                | "greek"
                | "thai"
                | "welsh"
                | "scot"
                | "scots"
                | "irish"
                | "arab"
                | "israeli"
                | "pakistani"
                | "iraqi"
                | "saudi"
                | "kuwaiti"
                | "yemeni"
                | "afghan"
                | "german"
                | "aussie"
                | "kiwi"
                | "brit"
                | "yank"
                | "tory"
                | "tories"
                | "labour"
                | "conservative"
                | "democrat"
                | "liberal"
                | "muslim"
                | "catholic"
                | "sunni"
                | "shia"
                | "kurd"
                | "libyan"
                | "kenyan"
                | "ukip"
                | "snp"
        )
}

/// Whether `word` (lower-cased) names an office or a rank rather than its holder ("Mayor",
/// "Duke", "MP"): beyond [`is_title`], the words that close a name of an office ("the London
/// Mayor", "the Home Secretary", "Tory MP").
pub fn is_office_word(word: &str) -> bool {
    is_title(word)
        || matches!(
            word,
            "duke"
                | "duchess"
                | "earl"
                | "countess"
                | "count"
                | "baron"
                | "baroness"
                | "majesty"
                | "highness"
                | "mp"
                | "mps"
                | "mep"
                | "correspondent"
                | "editor"
                | "chairman"
                | "chairwoman"
                | "spokesman"
                | "spokeswoman"
                | "spokesperson"
                | "leader"
                | "commissioner"
                | "director"
                | "executive"
                | "ceo"
                | "head"
        )
}

/// Whether `word` (lower-cased) marks a name as a place's: a street, a county, an airport.
pub fn is_place_word(word: &str) -> bool {
    matches!(
        word,
        "street"
            | "avenue"
            | "road"
            | "county"
            | "city"
            | "park"
            | "river"
            | "lake"
            | "mountain"
            | "mountains"
            | "island"
            | "islands"
            | "beach"
            | "bay"
            | "valley"
            | "square"
            | "bridge"
            | "province"
            | "region"
            | "airport"
            | "station"
            | "coast"
            | "sea"
            | "ocean"
            | "desert"
            | "district"
            | "village"
            | "town"
            | "harbour"
            | "port"
            | "hill"
            | "hills"
            | "forest"
            | "canyon"
            | "gulf"
            | "peninsula"
            | "state"
            | "states"
            | "kingdom"
            | "republic"
            | "estate"
            | "heights"
            | "falls"
            | "springs"
    )
}
