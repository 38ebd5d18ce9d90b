//! The closed sets whose members exclude each other (directions, ordinals, materials,
//! antonyms such as rose / fell).

/// A closed set of words whose members exclude each other, each member in all its forms.
pub struct ClosedSet {
    pub name: &'static str,
    pub members: &'static [&'static [&'static str]],
    /// Whether a capitalised form counts ("Western Australia" states a direction; "White"
    /// in a name states no colour).
    pub capitalised: bool,
}

/// The sets of two members with nothing between them: what is said not to be the one is the
/// other ("found him not guilty" is "cleared", "is not dead" "alive", "was not successful"
/// "unsuccessful"; "pleaded not guilty" states neither, `extract::terms`). Legality is left
/// out ("no one is allowed" says "not allowed" too), and so is winning ("in a bid to not lose
/// data" wins none).
pub const COMPLEMENTARY_SETS: &[&str] = &["verdict", "life", "success"];

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
    // Comparisons and qualities that are read only between the same words
    // (`facts::FRAMED_SETS`): "A is older than B" is "B is younger than A", and "negative"
    // or "cold" stand beside other words too often to be set against a rival anywhere.
    ClosedSet { name: "span", members: &[&["longer"], &["shorter"]], capitalised: false },
    ClosedSet { name: "seniority", members: &[&["older"], &["younger"]], capitalised: false },
    ClosedSet { name: "merit", members: &[&["better"], &["worse"]], capitalised: false },
    ClosedSet { name: "lead", members: &[&["ahead"], &["behind"]], capitalised: false },
    ClosedSet { name: "temperature", members: &[&["hot"], &["cold"]], capitalised: false },
    ClosedSet { name: "moisture", members: &[&["wet"], &["dry"]], capitalised: false },
    ClosedSet {
        name: "price",
        members: &[&["cheap", "cheaper", "cheapest"], &["expensive"]],
        capitalised: false,
    },
    ClosedSet { name: "sign", members: &[&["positive"], &["negative"]], capitalised: false },
    ClosedSet {
        name: "wealth",
        members: &[&["richest", "richer"], &["poorest", "poorer"]],
        capitalised: false,
    },
    ClosedSet {
        name: "season",
        members: &[&["summer", "summers"], &["winter", "winters"], &["autumn"]],
        capitalised: false,
    },
];
