//! Words about names: titles and offices, the capitalised words that name no one, the words
//! joining a name's parts, prepositions, and the words that tell a body, a people or a place
//! from a person.

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

/// Whether `word` (lower-cased) is a preposition a name can stand after ("in Paris", "by
/// Smith"): the slot a name fills (`facts::aligner`).
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
