use std::sync::Arc;

use async_trait::async_trait;
use factdesk_llm::{LlmError, Nli, NliJudgement, NliPair, NliScores};

use super::*;

fn kinds(pairs: &[FactPair]) -> Vec<(FactKind, &str, &str)> {
    pairs.iter().map(|pair| (pair.kind, pair.claim.as_str(), pair.evidence.as_str())).collect()
}

/// Checks the conflicts and unsupported facts of `claim` against `premise`.
fn check(premise: &str, claim: &str, conflicts: &[(FactKind, &str, &str)], unsupported: &[&str]) {
    let alignment = align(premise, claim);
    assert_eq!(
        kinds(&alignment.conflicts),
        conflicts,
        "conflicts of {claim:?} against {premise:?}: {alignment:?}"
    );
    let missing: Vec<&str> = alignment.unsupported.iter().map(|pair| pair.claim.as_str()).collect();
    assert_eq!(missing, unsupported, "unsupported facts of {claim:?} against {premise:?}");
}

const TOWER: &str = "The tower is 212 metres tall and stands on the eastern shore of the lake. It was built in 1887.";

#[test]
fn a_changed_number_conflicts_and_the_same_number_matches() {
    check(
        TOWER,
        "The tower is 412 metres tall.",
        &[(FactKind::Number, "412 metres", "212 metres")],
        &[],
    );
    check(TOWER, "The tower is 212 metres tall.", &[], &[]);
    let alignment = align(TOWER, "The tower is 212 metres tall.");
    assert_eq!(kinds(&alignment.matched)[0], (FactKind::Number, "212 metres", "212 metres"));
}

#[test]
fn numbers_are_normalised_before_they_are_compared() {
    let premise = "The company hired 1,000 workers and its sales rose 20% to $3.5 billion.";
    check(premise, "The company hired 1000 workers.", &[], &[]);
    check(premise, "The company hired one thousand workers.", &[], &[]);
    check(premise, "Sales rose 20 per cent.", &[], &[]);
    check(premise, "Sales rose to $3.5bn.", &[], &[]);
    check(
        premise,
        "The company hired 1,500 workers.",
        &[(FactKind::Number, "1,500 workers", "1,000 workers")],
        &[],
    );
    check(premise, "Sales rose 25 percent.", &[(FactKind::Number, "25 percent", "20%")], &[]);
    check(
        "Twelve people were hurt in the blast.",
        "Two hundred and twelve people were hurt.",
        &[(FactKind::Number, "Two hundred and twelve people", "Twelve people")],
        &[],
    );
    // A number set off after a name is an age: not a count of something else.
    check(
        "Joseph O'Riordan stabbed his wife eight times after discovering her affair.",
        "Joseph O'Riordan, 73, stabbed wife eight times after discovering her affair.",
        &[],
        &["73"],
    );
    check(
        "The councillor, a 73-year-old, stabbed his wife.",
        "Joseph O'Riordan, 73, stabbed his wife.",
        &[],
        &["O'Riordan"],
    );
    check(
        "Joseph O'Riordan, 37, stabbed his wife.",
        "Joseph O'Riordan, 73, stabbed his wife.",
        &[(FactKind::Number, "73", "37")],
        &[],
    );
    // An age, a sum paid yearly and a glued unit, written either way.
    check("Jean is seven years old.", "Jean is a seven-year-old.", &[], &[]);
    check(
        "Jean is seven years old.",
        "Jean is a nine-year-old.",
        &[(FactKind::Number, "nine-year-old", "seven years old")],
        &[],
    );
    check("Families lose over £1,000 a year.", "Families lose £1,000-a-year.", &[], &[]);
    check("The burger is 10in-tall.", "The burger is 10 inches tall.", &[], &[]);
}

#[test]
fn last_before_a_time_says_when_not_a_rank() {
    check(
        "The claims were thrown out by the judge on the first Wednesday of May.",
        "Claims were thrown out by the judge last Wednesday.",
        &[],
        &[],
    );
    check(
        "A snap of the Queen went viral last year.",
        "A snap of the Queen went viral in the first year.",
        &[],
        &[],
    );
    check(
        "It was the first day of the tournament.",
        "It was the last day of the tournament.",
        &[(FactKind::Term, "last", "first")],
        &[],
    );
}

#[test]
fn a_bound_restated_with_another_figure_conflicts() {
    let premise = "Officials made calls to more than 130 federal lawmakers last week.";
    check(
        premise,
        "Officials made calls to more than 80 federal lawmakers last week.",
        &[(FactKind::Number, "80 federal", "130 federal")],
        &[],
    );
    check(premise, "Officials made calls to more than 130 federal lawmakers.", &[], &[]);
    // A figure inside the bound still agrees with it.
    check(premise, "Officials called 150 federal lawmakers last week.", &[], &[]);
}

#[test]
fn a_measure_in_other_units_is_the_same_figure() {
    check("The tower is 212 metres tall.", "The tower is 696 feet tall.", &[], &[]);
    check(
        "The tower is 212 metres tall.",
        "The tower is 900 feet tall.",
        &[(FactKind::Number, "900 feet", "212 metres")],
        &[],
    );
    check("The race is 5 km long.", "The race is 5,000 metres long.", &[], &[]);
    check("The flight took 2 hours.", "The flight took 120 minutes.", &[], &[]);
    check(
        "The flight took 2 hours.",
        "The flight took 150 minutes.",
        &[(FactKind::Number, "150 minutes", "2 hours")],
        &[],
    );
    check("The baby weighed 4 kg.", "The baby weighed 4,000 grams.", &[], &[]);
    // A conversion is as rounded as the figure it gives: 5 km is 3 miles to the nearest mile.
    check("The race is 5 km long.", "The race is 3 miles long.", &[], &[]);
    check(
        "The race is 5 km long.",
        "The race is 4 miles long.",
        &[(FactKind::Number, "4 miles", "5 km")],
        &[],
    );
    // Money is not converted: a sum in pounds is not one in dollars.
    check("The coat cost £25.", "The coat cost $25.", &[], &["$25"]);
}

#[test]
fn dates_written_with_slashes_are_dates() {
    check("It happened on 20 July 1969.", "It happened on 07/20/1969.", &[], &[]);
    check("It happened on 20 July 1969.", "It happened on 20/07/1969.", &[], &[]);
    check(
        "It happened on 20 July 1969.",
        "It happened on 21/07/1969.",
        &[(FactKind::Date, "21/07/1969", "20 July 1969")],
        &[],
    );
}

#[test]
fn times_and_telephone_numbers_state_no_figure() {
    for claim in [
        "The crash took place at about 4:45 p.m.",
        "Call the helpline on 08457 90 90 90.",
        "Quote reference 0800 on the line.",
    ] {
        let alignment = align("Something else entirely happened.", claim);
        assert!(alignment.is_empty(), "{claim:?}: {alignment:?}");
        assert!(absent_facts(&["Something else entirely happened."], claim).is_empty());
    }
}

#[test]
fn approximations_and_ranges_have_a_tolerance() {
    check(TOWER, "The tower is about 210 metres tall.", &[], &[]);
    check(
        TOWER,
        "The tower is about 300 metres tall.",
        &[(FactKind::Number, "300 metres", "212 metres")],
        &[],
    );
    check(TOWER, "The tower is between 200 and 250 metres tall.", &[], &[]);
    check(TOWER, "The tower is more than 200 metres tall.", &[], &[]);
    check(
        TOWER,
        "The tower is less than 200 metres tall.",
        &[(FactKind::Number, "200 metres", "212 metres")],
        &[],
    );
    check("Between 200 and 250 people came.", "About 220 people came.", &[], &[]);
    // A bound with a unit holds no bare number of something else.
    check(
        "Up to 30 per cent of men have the defect. They found 16 out of 49 men responded.",
        "Up to 20 per cent of men have the defect.",
        &[(FactKind::Number, "20 per cent", "30 per cent")],
        &[],
    );
}

#[test]
fn numbers_of_other_units_do_not_conflict_but_are_unsupported() {
    check(TOWER, "The tower weighs 7,300 tonnes.", &[], &["7,300 tonnes"]);
}

#[test]
fn whole_numbers_are_compared_exactly_and_large_ones_allow_rounding() {
    check(
        "He was jailed for his role in a 2007 shooting that killed 14 civilians.",
        "He was jailed for his role in a 2005 shooting that killed 14 civilians.",
        &[(FactKind::Number, "2005 shooting", "2007 shooting")],
        &[],
    );
    check(
        "She has lived in the apartment since 1962 when rent was $150 a month.",
        "She has lived there since 1961 when rent was $150 a month.",
        &[(FactKind::Date, "1961", "1962")],
        &[],
    );
    check("The town has 1,841,000 residents.", "The town has 1.84 million residents.", &[], &[]);
}

#[test]
fn years_and_dates_conflict_when_a_part_differs() {
    check(TOWER, "It was built in 1911.", &[(FactKind::Date, "1911", "1887")], &[]);
    check(TOWER, "It was built in 1887.", &[], &[]);
    let landing = "The lunar module touched down on 20 July 1969.";
    check(landing, "It landed on July 20, 1969.", &[], &[]);
    check(landing, "It landed in 1969.", &[], &[]);
    check(
        landing,
        "It landed on 21 July 1969.",
        &[(FactKind::Date, "21 July 1969", "20 July 1969")],
        &[],
    );
    check("The file is dated 2020-11-18.", "It is dated 18 November 2020.", &[], &[]);
}

#[test]
fn a_name_in_another_name_place_conflicts_and_parts_of_a_name_match() {
    let premise =
        "The Scottish physician Alexander Fleming discovered penicillin in 1928 in London.";
    check(
        premise,
        "Penicillin was discovered by Louis Pasteur.",
        &[(FactKind::Name, "Louis Pasteur", "Alexander Fleming")],
        &[],
    );
    check(premise, "Penicillin was discovered by Fleming.", &[], &[]);
    // Short forms, peoples named for their places and plurals name the same.
    check("Jessica Wright fronts the campaign.", "Jess fronts the campaign.", &[], &[]);
    check(
        "A warrant was issued for Alexander Soumbadze, 26.",
        "A warrant was issued for Alex Soumbadze, 26.",
        &[],
        &[],
    );
    check("She died on holiday in Mexico.", "She died on a Mexican holiday.", &[], &[]);
    check(
        "Five more years of the Tories would harm the NHS.",
        "Five more years of Tory government would harm the NHS.",
        &[],
        &[],
    );
    check(
        "The match was won by Austria.",
        "The match was won by Australia.",
        &[(FactKind::Name, "Australia", "Austria")],
        &[],
    );
    // Titles and possessives name no one.
    check(
        "He interned with President Obama's 2012 re-election campaign.",
        "Bird interned with Barack Obama's 2012 campaign.",
        &[],
        &[],
    );
    check(
        "Prince William visited the school.",
        "Prince Harry visited the school.",
        &[(FactKind::Name, "Harry", "Prince William")],
        &[],
    );
    check("Barack Obama met the United Nations chief.", "Obama met the UN chief.", &[], &[]);
    // A short form and a misspelling name the same person.
    let warrant = "A warrant was issued for Alexander Soumbadze, a karate instructor.";
    check(warrant, "A warrant was issued for Soumbadze.", &[], &[]);
    check(
        "The raid killed Osama bin Laden in Abbottabad.",
        "The raid killed Obama in Abbottabad.",
        &[(FactKind::Name, "Obama", "Osama bin Laden")],
        &[],
    );
    check(warrant, "A warrant was issued for Alexander Soumbadse.", &[], &[]);
    check(
        warrant,
        "A warrant was issued for Alexander Petrov.",
        &[(FactKind::Name, "Alexander Petrov", "Alexander Soumbadze")],
        &[],
    );
    // A name the premise gives elsewhere, another in its place in the sentence restated.
    let assault = "Mark Lippert, 42, was assaulted by the nationalist Kim Ki-Jong at a breakfast \
                   in Seoul. He was treated by Lee Sang-Min at Severance Hospital.";
    check(
        assault,
        "Mark Lippert, 42, was assaulted by the nationalist Lee Sang-Min in Seoul.",
        &[(FactKind::Name, "Lee Sang-Min", "Kim Ki-Jong")],
        &[],
    );
    // A hospital in a person's place names another kind of thing: no conflict.
    check(
        assault,
        "Mark Lippert, 42, was assaulted by the nationalist Severance Hospital in Seoul.",
        &[],
        &[],
    );
    // A name the premise does not use, with no other name in its place: unsupported.
    check(
        "the drug was discovered in a laboratory.",
        "The drug was discovered in Oslo.",
        &[],
        &["Oslo"],
    );
}

#[test]
fn a_sentence_first_word_is_a_name_only_where_it_is_one_elsewhere() {
    let alignment = align(
        "Returning from a holiday, he found the mould.",
        "He found the mould after a holiday.",
    );
    assert!(alignment.conflicts.is_empty() && alignment.unsupported.is_empty(), "{alignment:?}");
}

#[test]
fn negation_added_or_removed_conflicts() {
    let premise = "The minister did not sign the agreement on Monday.";
    check(
        premise,
        "The minister signed the agreement on Monday.",
        &[(FactKind::Polarity, "(not negated)", "did not sign")],
        &[],
    );
    check(premise, "The minister did not sign the agreement on Monday.", &[], &[]);
    check(
        "The bridge was opened to traffic in May 2001.",
        "The bridge was never opened to traffic.",
        &[(FactKind::Polarity, "was never opened", "(not negated)")],
        &[],
    );
}

#[test]
fn a_belief_the_evidence_denies_counts_as_negated() {
    let premise = "A popular belief holds that the wall can be seen from the Moon with the naked eye. It cannot: astronauts have reported that it is hard to see even from orbit.";
    let alignment =
        align(premise, "The Great Wall of China can be seen from the Moon with the naked eye.");
    assert_eq!(alignment.conflicts.len(), 1, "{alignment:?}");
    assert_eq!(alignment.conflicts[0].kind, FactKind::Polarity);
    assert_eq!(alignment.conflicts[0].evidence, "It cannot");
    // In a premise whose sentences come in the order they were found, the denial that points
    // back at the belief still denies it; a negative sentence that does not, does not.
    let found_order = "A popular belief holds that the wall can be seen from the Moon with the naked eye. The Great Wall of China is a series of fortifications. It cannot: astronauts have reported that it is hard to see even from orbit.";
    let alignment =
        align(found_order, "The Great Wall of China can be seen from the Moon with the naked eye.");
    assert_eq!(alignment.conflicts.len(), 1, "{alignment:?}");
    assert_eq!(alignment.conflicts[0].evidence, "It cannot");
    // Said in other words ("visible" for "can be seen"), the belief is still the claim's.
    let alignment =
        align(found_order, "The Great Wall of China is visible from the Moon with the naked eye.");
    assert_eq!(alignment.conflicts.len(), 1, "{alignment:?}");
    let unrelated = "A popular belief holds that the wall can be seen from the Moon with the naked eye. The Great Wall of China is a series of fortifications. Tourists do not pay to walk on it.";
    let alignment =
        align(unrelated, "The Great Wall of China can be seen from the Moon with the naked eye.");
    assert!(alignment.conflicts.is_empty(), "{alignment:?}");
}

#[test]
fn closed_set_terms_conflict_with_their_rivals() {
    check(
        TOWER,
        "The tower stands on the western shore of the lake.",
        &[(FactKind::Term, "western", "eastern")],
        &[],
    );
    check(
        "The Great Barrier Reef lies off the coast of Queensland in north-eastern Australia.",
        "The Great Barrier Reef lies off the coast of Western Australia.",
        &[(FactKind::Term, "Western", "north-eastern")],
        &[],
    );
    check(
        "The Eiffel Tower is a wrought-iron lattice tower in Paris.",
        "The Eiffel Tower is built of reinforced concrete.",
        &[(FactKind::Term, "concrete", "wrought-iron")],
        &[],
    );
    check(
        "Shares fell 3% on Tuesday.",
        "Shares rose 3% on Tuesday.",
        &[(FactKind::Term, "rose", "fell")],
        &[],
    );
    check(
        "United won the final 2-1.",
        "United lost the final.",
        &[(FactKind::Term, "lost", "won")],
        &[],
    );
    // What a thing is made of, said in a sentence about it that the claim aligns less well.
    check(
        "It is named after the engineer Gustave Eiffel, whose company designed and built it. \
         The Eiffel Tower is a wrought-iron lattice tower in Paris.",
        "The Eiffel Tower is built of reinforced concrete.",
        &[(FactKind::Term, "concrete", "wrought-iron")],
        &[],
    );
    // Not where that sentence is about something else.
    check(
        "It is named after the engineer Gustave Eiffel, whose company designed and built it. \
         The Statue of Liberty has a wrought-iron frame.",
        "The Eiffel Tower is built of reinforced concrete.",
        &[],
        &["Eiffel Tower", "concrete"],
    );
    // People's sex and family ties.
    check(
        "Her father, a doctor, was arrested on Monday.",
        "Her mother, a doctor, was arrested on Monday.",
        &[(FactKind::Term, "mother", "father")],
        &[],
    );
    // Relations that read both ways conflict only between the same words: one side's husband
    // is the other's wife, one club sells what another buys.
    check(
        "Mary Smith is the wife of John Smith.",
        "John Smith is the husband of Mary Smith.",
        &[],
        &[],
    );
    check("United sold Jones to City.", "City bought Jones from United.", &[], &[]);
    check("The flat is above the shop.", "The shop is below the flat.", &[], &[]);
    // Beside the same name, the same frame: "his wife Carolyn" is not "his husband Carolyn".
    check(
        "Cruel: Army Major John Jackson (left) and his wife Carolyn (right) are on trial.",
        "Army Major John Jackson and his husband Carolyn face charges of abuse.",
        &[(FactKind::Term, "husband", "wife")],
        &[],
    );
    // A term inside a name ("Greater Western Sydney") has no name before it.
    let inside = align(
        "Greater Eastern Sydney won the final. The western suburbs celebrated.",
        "Greater Western Sydney won the final.",
    );
    assert_eq!(kinds(&inside.conflicts)[..1], [(FactKind::Term, "Western", "Eastern")]);
    // With and without, between the same words.
    check(
        "The law lets the police detain suspects for two years without charge or trial.",
        "The law lets the police hold suspects for two years with charge or trial.",
        &[(FactKind::Term, "with", "without")],
        &[],
    );
    check(
        "He left without his coat, and came back with it an hour later.",
        "He came back with his coat an hour later.",
        &[],
        &[],
    );
    // Order in time: "before" and "after" swap with their events in a paraphrase, and
    // conflict where they stand between the same words.
    check(
        "The vote came after he resigned from the party.",
        "He resigned from the party before the vote.",
        &[],
        &[],
    );
    check(
        "He resigned from the party after the vote.",
        "He resigned from the party before the vote.",
        &[(FactKind::Term, "before", "after")],
        &[],
    );
    check(
        "The recruit joined the front before switching to the rival group after just four months.",
        "The recruit switched to the rival group before just four months.",
        &[(FactKind::Term, "before", "after")],
        &[],
    );
    check(
        "Mary Smith is the wife of John Smith.",
        "Mary Smith is the husband of John Smith.",
        &[(FactKind::Term, "husband", "wife")],
        &[],
    );
    check(
        "Demand for the tickets was more than expected.",
        "Demand for the tickets was less than expected.",
        &[(FactKind::Term, "less", "more")],
        &[],
    );
    // A premise silent on the term leaves it alone.
    check("Shares traded on Tuesday.", "Shares rose on Tuesday.", &[], &[]);
    // A term held elsewhere does not hold against a rival in the restated sentence.
    check(
        "Nine out of 10 times, the first contact a patient has with the health service is \
         through their GP. The last government encouraged extra hours.",
        "Nine in 10 times, the last contact a patient has with the health service is via a GP.",
        &[(FactKind::Term, "last", "first")],
        &[],
    );
}

#[test]
fn a_ranked_role_given_to_another_name_conflicts() {
    let premise = "Armstrong became the first person to step onto the lunar surface, and Aldrin joined him about twenty minutes later.";
    let alignment = align(premise, "Buzz Aldrin was the first person to walk on the Moon.");
    let roles: Vec<_> =
        alignment.conflicts.iter().filter(|pair| pair.kind == FactKind::Role).collect();
    assert_eq!(roles.len(), 1, "{alignment:?}");
    assert_eq!(roles[0].claim, "Aldrin was the first");
    assert_eq!(roles[0].evidence, "Armstrong became the first");
    assert!(
        align(premise, "Armstrong was the first person on the lunar surface.").conflicts.is_empty()
    );
    // The rank stated after another "first" in the premise, as on the demo's page.
    let page = "Apollo 11 was the spaceflight that first landed people on the Moon. The lunar \
                module Eagle touched down on 20 July 1969 carrying the astronauts Neil Armstrong \
                and Buzz Aldrin. Armstrong became the first person to step onto the lunar \
                surface, and Aldrin joined him about twenty minutes later.";
    let alignment = align(page, "Buzz Aldrin was the first person to walk on the Moon.");
    assert!(alignment.conflicts.iter().any(|pair| pair.kind == FactKind::Role), "{alignment:?}");
    // A rank of another kind is no conflict.
    let space = "Yuri Gagarin was the first human in space. Valentina Tereshkova flew in 1963.";
    let alignment = align(space, "Valentina Tereshkova was the first woman in space.");
    assert!(alignment.conflicts.iter().all(|pair| pair.kind != FactKind::Role), "{alignment:?}");
    // A name after a preposition holds no rank.
    let venus = "Venus is the second planet from the Sun and the hottest planet in the Solar \
                 System.";
    let alignment = align(venus, "Venus is the hottest planet in the Solar System.");
    assert!(alignment.conflicts.is_empty(), "{alignment:?}");
    // Where the premise gives the rank to the claim's name too, no conflict.
    let both = "Armstrong was the first person to walk on the Moon. Aldrin was the first person \
                to pilot the lunar module down.";
    let alignment = align(both, "Aldrin was the first person to pilot the lunar module down.");
    assert!(alignment.conflicts.is_empty(), "{alignment:?}");
}

#[test]
fn claims_without_facts_and_bad_input_give_an_empty_alignment() {
    assert!(align("", "The tower is 212 metres tall.").is_empty());
    assert!(align(TOWER, "   ").is_empty());
    let opinion = align(TOWER, "Is the tower beautiful?");
    assert!(opinion.conflicts.is_empty() && opinion.unsupported.is_empty());
    // Any text, however odd, gives an answer.
    for text in [
        "1,2,3",
        "$",
        "%%",
        "1e9",
        "— – -",
        "2020-13-45",
        "between and",
        "The The The",
        "日本の塔は333メートル",
    ] {
        let _ = align(TOWER, text);
        let _ = align(text, TOWER);
    }
}

#[test]
fn a_conflict_moves_entailment_to_contradiction_and_a_gap_to_neutral() {
    let weights = AlignmentWeights::default();
    let scores = NliScores::normalised(0.95, 0.05, 0.0);
    let refuted = weights.apply(scores, &align(TOWER, "The tower is 412 metres tall."), &[]);
    assert!(
        refuted.entailment < 0.2
            && refuted.contradiction > 0.5
            && refuted.contradiction > refuted.entailment,
        "{refuted:?}"
    );
    // A figure the premise does not state moves the judgement only when weighed.
    let missing = align(TOWER, "The tower on the lake weighs 7,300 tonnes.");
    assert_eq!(kinds(&missing.unsupported), [(FactKind::Number, "7,300 tonnes", "")]);
    let weighed: AlignmentWeights = "unsupported_figure=4".parse().unwrap();
    let gap = weighed.apply(scores, &missing, &[]);
    assert!(gap.entailment < 0.5 && gap.contradiction == 0.0, "{gap:?}");
    assert!((weights.apply(scores, &missing, &[]).entailment - scores.entailment).abs() < 1e-9);
    let same = weights.apply(scores, &align(TOWER, "The tower is 212 metres tall."), &[]);
    assert_eq!(same, scores);
    // A reversed polarity and a name in another's place weigh less than a changed figure.
    let negated = align(
        "The minister did not sign the agreement on Monday.",
        "The minister signed the agreement on Monday.",
    );
    assert_eq!(negated.conflicts[0].kind, FactKind::Polarity);
    let moved = weights.apply(scores, &negated, &[]);
    assert!(moved.entailment < 0.5 && moved.entailment > refuted.entailment, "{moved:?}");
    let renamed = FactAlignment {
        conflicts: vec![FactPair {
            kind: FactKind::Name,
            claim: "Pasteur".into(),
            evidence: "Fleming".into(),
        }],
        ..FactAlignment::default()
    };
    let renamed = weights.apply(scores, &renamed, &[]);
    assert!(renamed.entailment < 0.8 && renamed.entailment > refuted.entailment, "{renamed:?}");
}

#[test]
fn weights_are_read_by_name_and_bad_ones_are_named() {
    let weights: AlignmentWeights = "conflict=5, name=1".parse().unwrap();
    assert_eq!(
        weights,
        AlignmentWeights { conflict: 5.0, name: 1.0, ..AlignmentWeights::default() }
    );
    assert_eq!(weights.to_string().parse::<AlignmentWeights>().unwrap(), weights);
    for (bad, named) in [
        ("conflict", "NAME=VALUE"),
        ("conflict=-1", "non-negative"),
        ("contradiction=2", "at most 1"),
        ("colour=1", "\"colour\" is no alignment weight"),
    ] {
        let error = bad.parse::<AlignmentWeights>().unwrap_err();
        assert!(error.contains(named), "{bad}: {error}");
    }
}

#[test]
fn a_fact_another_premise_states_is_held_by_the_evidence() {
    let first =
        "Christopher Annan, 24, and Tyrone Wright, 20, took part in the attack on Inan Eren.";
    let second = "Inan Eren, 35, was shot twice in the attack.";
    let claim = "Took part in the attack on Inan Eren, 35.";
    // Alone, the first premise sets another age against the claim's.
    assert_eq!(align(first, claim).conflicts.len(), 1, "{:?}", align(first, claim));
    let both = align_all(&[first, second], claim);
    assert!(both[0].conflicts.is_empty() && both[0].unsupported.is_empty(), "{both:?}");
    assert!(kinds(&both[1].matched).contains(&(FactKind::Number, "35", "35")), "{both:?}");
    // A figure no premise holds and one contradicts conflicts with the silent premise too.
    let silent = "The tower stands on the eastern shore of the lake.";
    let claim = "The tower is 412 metres tall.";
    let spread = align_all(&[silent, TOWER], claim);
    assert_eq!(kinds(&spread[0].conflicts), [(FactKind::Number, "412 metres", "212 metres")]);
    assert!(spread[0].unsupported.is_empty());
    // So does a closed-set term, in a premise that does not state it at all.
    let silent = "The supplies are on their way to the space station.";
    let friday = "The supplies should reach the astronauts on Friday.";
    let spread = align_all(&[silent, friday], "The supplies will reach the station on Tuesday.");
    assert_eq!(kinds(&spread[0].conflicts), [(FactKind::Term, "Tuesday", "Friday")], "{spread:?}");
    // Not where another premise states the claim's.
    let tuesday = "They will reach the station on Tuesday.";
    let held = align_all(&[silent, friday, tuesday], "They will reach the station on Tuesday.");
    assert_eq!(kinds(&held[1].conflicts), [(FactKind::Term, "Tuesday", "Friday")], "{held:?}");
    assert!(held[0].conflicts.is_empty(), "{held:?}");
    // So does a rank another premise gives someone else, unless one gives it the claim's name.
    let landed = "The lunar module touched down carrying Neil Armstrong and Buzz Aldrin.";
    let first = "Armstrong became the first person on the surface, and Aldrin joined him.";
    let claim = "Buzz Aldrin was the first person to walk on the Moon.";
    let spread = align_all(&[landed, first], claim);
    let roles = |alignment: &FactAlignment| {
        alignment.conflicts.iter().filter(|pair| pair.kind == FactKind::Role).count()
    };
    assert_eq!((roles(&spread[0]), roles(&spread[1])), (1, 1), "{spread:?}");
    let aldrin_first = "In 1969 Buzz Aldrin was the first person to pilot the module.";
    let held =
        align_all(&[landed, first, aldrin_first], "Aldrin was the first person to pilot it.");
    assert!(held.iter().all(|alignment| roles(alignment) == 0), "{held:?}");
}

#[test]
fn a_possessive_ends_a_name() {
    // "Perth's Kim Hames" is a city and a person, not one name that "Perth" alone matches.
    check(
        "Doctors at the hospital in Perth said Joyce Tabram was admitted on March 30.",
        "Doctors said Perth's Kim Hames was admitted on March 30.",
        &[(FactKind::Name, "Kim Hames", "Joyce Tabram")],
        &[],
    );
}

#[test]
fn a_first_word_the_sources_write_as_a_name_is_one() {
    // The claim alone cannot tell "McKinsey" from a common word opening a sentence; the
    // article, which writes it capitalised inside its sentences and never in lower case, can.
    let premise = "Police have since charged Briel with first-degree murder and abduction.";
    let article = "The body of Jane Smith was found on Friday. Officers said McKinsey had last \
                   seen her at the bar. Police have since charged Briel with first-degree murder \
                   and abduction.";
    let claim = "McKinsey was charged with first-degree murder and abduction.";
    let names = |alignment: &FactAlignment| {
        alignment
            .conflicts
            .iter()
            .chain(&alignment.unsupported)
            .filter(|pair| pair.kind == FactKind::Name)
            .map(|pair| pair.claim.clone())
            .collect::<Vec<_>>()
    };
    assert!(names(&align_all(&[premise], claim)[0]).is_empty());
    assert_eq!(names(&align_all_from(&[premise], &[article], claim)[0]), ["McKinsey"]);
    // The same claim naming the one the premise names is held.
    let right = "Briel was charged with first-degree murder and abduction.";
    let held = &align_all_from(&[premise], &[article], right)[0];
    assert!(names(held).is_empty(), "{held:?}");
    assert_eq!(held.matched.iter().filter(|pair| pair.kind == FactKind::Name).count(), 1);
    // A word the article also writes in lower case stays a common word ("Thames Valley
    // Police" and "the police").
    let article = format!("{article} Thames Valley Police said the police inquiry goes on.");
    let police = "Police charged a man with first-degree murder and abduction.";
    let alignment = &align_all_from(&[premise], &[article.as_str()], police)[0];
    assert!(names(alignment).is_empty(), "{alignment:?}");
}

#[tokio::test]
async fn the_premises_asked_with_one_claim_are_its_evidence() {
    struct Sure;
    #[async_trait]
    impl Nli for Sure {
        fn name(&self) -> String {
            "sure".into()
        }
        async fn classify(&self, pairs: &[NliPair]) -> Result<Vec<NliJudgement>, LlmError> {
            Ok(pairs
                .iter()
                .map(|_| NliJudgement {
                    scores: NliScores::normalised(0.95, 0.05, 0.0),
                    usage: Default::default(),
                })
                .collect())
        }
    }
    let checked = FactChecked::new(Arc::new(Sure), AlignmentWeights::default());
    let pair = |premise: &str, hypothesis: &str| NliPair {
        premise: premise.into(),
        hypothesis: hypothesis.into(),
    };
    let first =
        "Christopher Annan, 24, and Tyrone Wright, 20, took part in the attack on Inan Eren.";
    let second = "Inan Eren, 35, was shot twice in the attack.";
    let claim = "Took part in the attack on Inan Eren, 35.";
    let other = "The tower is 412 metres tall.";
    // Asked together, the second premise holds the age; asked alone, the first contradicts it.
    let together = checked
        .classify(&[pair(first, claim), pair(TOWER, other), pair(second, claim)])
        .await
        .unwrap();
    assert!(together[0].scores.entailment > 0.9, "{:?}", together[0]);
    assert!(together[1].scores.contradiction > 0.5, "{:?}", together[1]);
    let alone = checked.classify(&[pair(first, claim)]).await.unwrap();
    assert!(alone[0].scores.contradiction > 0.5, "{:?}", alone[0]);
    // A premise about something else entails nothing, however sure the model is; one on the
    // claim's topic keeps the model's judgement.
    let unrelated = checked
        .classify(&[
            pair(
                "Some people have hinted the photographs may have been altered.",
                "A study suggests overweight people are less likely to develop dementia.",
            ),
            pair(
                "A new study suggests that overweight people are less likely to develop dementia.",
                "A study suggests overweight people are less likely to develop dementia.",
            ),
        ])
        .await
        .unwrap();
    assert!(unrelated[0].scores.entailment < 0.5, "{:?}", unrelated[0]);
    assert!(unrelated[1].scores.entailment > 0.9, "{:?}", unrelated[1]);
}

#[test]
fn a_premise_holding_few_of_the_claim_words_is_unrelated_only_when_weighed() {
    let claim = "A study suggests overweight people are less likely to develop dementia.";
    let elsewhere = align("Some people have hinted the photographs may have been altered.", claim);
    assert!(elsewhere.unrelated, "{elsewhere:?}");
    assert_eq!(
        elsewhere.summary().as_deref(),
        Some("the evidence is about something else (it holds few of the claim's words)")
    );
    let about =
        align("Overweight people are less likely to develop dementia, a study says.", claim);
    assert!(!about.unrelated, "{about:?}");
    let scores = NliScores::normalised(0.9, 0.1, 0.0);
    let weights = AlignmentWeights::default();
    let moved = weights.apply(scores, &elsewhere, &[]);
    assert!(moved.entailment < 0.5 && moved.contradiction == 0.0, "{moved:?}");
    assert_eq!(weights.apply(scores, &about, &[]), scores);
    let unweighed: AlignmentWeights = "unrelated=0".parse().unwrap();
    assert_eq!(unweighed.apply(scores, &elsewhere, &[]), scores);
}

#[test]
fn a_premise_sharing_one_word_of_several_is_about_something_else() {
    let claim = "School apologised and said investigation has been launched.";
    // "said" is a fifth of the claim's words, yet all the quotation shares with it.
    let quotation = "'It was pretty cold and wet inside the cave,' said Mr Budkov.";
    assert!(align(quotation, claim).unrelated);
    let about = "The school said an investigation had been launched.";
    assert!(!align(about, claim).unrelated);
    // A short claim sharing one is left to the model: a paraphrase shares little.
    assert!(!align("The minister resigned on Monday.", "Minister apologised.").unrelated);
    assert!(
        !align("The president dismissed FBI director James Comey.", "Trump fired Comey.").unrelated
    );
}

#[test]
fn a_negation_counts_where_it_negates_a_word_both_state() {
    // The same negation written two ways agrees, whatever else the sentence negates.
    check(
        "The company does not know when it will be fully supplied again and has not said why.",
        "The company doesn't know when it will be fully supplied again.",
        &[],
        &[],
    );
    // A negation negates the word it stands before, not what the next clause says.
    check(
        "Agents face fines and imprisonment if they don't comply with the new law.",
        "Agents who do not comply with the law will face fines and imprisonment.",
        &[],
        &[],
    );
    check(
        "Agents face fines and imprisonment if they comply with the new law.",
        "Agents who do not comply with the law will face fines and imprisonment.",
        &[(FactKind::Polarity, "do not comply", "(not negated)")],
        &[],
    );
}

#[test]
fn a_change_and_two_years_are_no_range() {
    check(
        "The jobless total fell by 76,000 to 1.84 million in the quarter to February.",
        "The jobless total fell by 76,000 to 1.84 million.",
        &[],
        &[],
    );
    check(
        "Between 2005 and 2012 the firm spent nearly £29 million flying executives abroad.",
        "Between 2005 and 2012 the firm spent £29million on flights.",
        &[],
        &[],
    );
}

#[test]
fn a_belief_the_evidence_only_reports_leaves_the_claim_unsupported() {
    let premise =
        "A popular belief holds that the wall can be seen from the Moon with the naked eye.";
    let alignment = align(premise, "The wall can be seen from the Moon with the naked eye.");
    assert!(alignment.conflicts.is_empty(), "{alignment:?}");
    assert_eq!(kinds(&alignment.unsupported), [(FactKind::Polarity, "popular belief", "")]);
    assert_eq!(
        alignment.summary().as_deref(),
        Some("the evidence reports it only as a popular belief")
    );
}

#[test]
fn a_material_colour_or_direction_no_premise_states_is_unsupported() {
    let premise = "It is named after the engineer whose company designed and built it.";
    let alignment = align(premise, "The tower is built of reinforced concrete.");
    assert_eq!(kinds(&alignment.unsupported), [(FactKind::Term, "concrete", "")]);
    // Other closed sets say nothing when the premise is silent.
    assert!(align(premise, "Shares rose after it was built.").unsupported.is_empty());
}

#[test]
fn what_a_claim_only_asks_about_is_not_aligned() {
    let premise = "The Eagle landed on the Moon on 20 July 1969 with Neil Armstrong aboard.";
    // The question names a year and a person the premise does not hold; only the answer is
    // stated.
    check(
        premise,
        "The answer to the question \"Who walked on the Moon in 1972 after Harrison Schmitt?\" is: Neil Armstrong",
        &[],
        &[],
    );
    check(premise, "Did Buzz Aldrin land on the Moon in 1968?", &[], &[]);
    // The answer itself is still read.
    check(
        premise,
        "The answer to the question \"When did the Eagle land?\" is: 20 July 1968",
        &[(FactKind::Date, "20 July 1968", "20 July 1969")],
        &[],
    );
}

#[test]
fn a_name_no_source_names_is_absent_and_one_named_anywhere_is_not() {
    let source = "The council met on Monday. Mayor Ellen Park opened the meeting. Later, \
                  residents of Linden Street asked about the bridge.";
    let absent = absent_facts(&[source], "Mayor Tom Reyes opened the meeting.");
    assert_eq!(kinds(&absent), [(FactKind::Name, "Tom Reyes", "")]);
    // Named in another sentence of the source, or by a short form: not absent.
    assert!(absent_facts(&[source], "Linden Street residents asked about the bridge.").is_empty());
    assert!(absent_facts(&[source], "Park opened the meeting.").is_empty());
    // What a claim only asks about it does not state.
    assert!(absent_facts(&[source], "Did Tom Reyes open the meeting?").is_empty());
}

#[test]
fn a_name_stands_in_another_place_only_for_the_same_kind_of_thing() {
    // A person is not contradicted by the school, the street or the city the premise names.
    let premise = "Pupils at Greenfield Primary School were told of the teacher's death on Friday.";
    check(
        premise,
        "Pupils of Hannah Cole were told of the teacher's death on Friday.",
        &[],
        &["Hannah Cole"],
    );
    let premise = "Doctors say the 29-year-old from Chicago has a rare condition.";
    check(premise, "Doctors say Sara Lind has a rare condition.", &[], &["Sara Lind"]);
    // Two people do stand in each other's place.
    check(
        "Doctors say the patient Maria Holt has a rare condition.",
        "Doctors say Sara Lind has a rare condition.",
        &[(FactKind::Name, "Sara Lind", "Maria Holt")],
        &[],
    );
}

#[test]
fn a_name_held_elsewhere_conflicts_with_the_one_in_its_place_where_the_rest_is_restated() {
    // The sentence restating the claim names someone else; the claim's name is in another
    // sentence. Its own words are left out of what the restating sentence must share.
    let premise = "Shadow transport secretary Dan Price spoke at a hustings event on Tuesday. \
                   Earlier, shadow health secretary Lena Ward had visited the hospital.";
    check(
        premise,
        "Shadow transport secretary Lena Ward spoke at a hustings event.",
        &[(FactKind::Name, "Lena Ward", "Dan Price")],
        &[],
    );
    check(premise, "Shadow transport secretary Dan Price spoke at a hustings event.", &[], &[]);
}

#[test]
fn a_name_given_to_another_where_the_claim_is_restated_conflicts_with_every_premise() {
    let restating = "Lippert suffered deep gashes when he was attacked by Kim Ki-Jong in Seoul.";
    let further = "Lippert suffered deep gashes when he was attacked by Kim Ki-Jong in Seoul. \
                   He was treated at the clinic of Dr Lee Sang-Min.";
    let elsewhere = "Dr Lee Sang-Min said the ambassador would recover fully.";
    let claim = "Lippert suffered deep gashes when he was attacked by Lee Sang-Min in Seoul.";
    let each = align_all(&[restating, further, elsewhere], claim);
    // The premise naming Lee Sang-Min only elsewhere holds no name in its place, yet the
    // restating sentence gives the attack to Kim Ki-Jong: every premise conflicts.
    for alignment in &each {
        assert_eq!(
            kinds(&alignment.conflicts),
            [(FactKind::Name, "Lee Sang-Min", "Kim Ki-Jong")],
            "{each:?}"
        );
        assert!(!alignment.matched.iter().any(|pair| pair.claim == "Lee Sang-Min"), "{each:?}");
    }
    // A premise restating the claim with its name holds it for the evidence.
    let held = "Lippert suffered deep gashes when he was attacked by Lee Sang-Min in Seoul.";
    let each = align_all(&[restating, further, held], claim);
    assert!(each.iter().all(|alignment| alignment.conflicts.is_empty()), "{each:?}");
}

#[test]
fn the_words_of_one_name_stand_apart_by_spaces_only() {
    let parsed = |text: &str| -> Vec<Vec<String>> {
        let parsed = extract::parse(text, &extract::FirstWords::default());
        parsed
            .facts
            .iter()
            .filter_map(|fact| match &fact.value {
                extract::Value::Name(words) => Some(words.clone()),
                _ => None,
            })
            .collect()
    };
    let words = |names: &[&str]| -> Vec<Vec<String>> {
        names.iter().map(|name| name.split(' ').map(str::to_owned).collect()).collect()
    };
    assert_eq!(
        parsed("The driver was named by Judge Ann Cole: Austin Bird."),
        words(&["judge ann cole", "austin bird"])
    );
    assert_eq!(
        parsed("It met Buddy Holly, Charles Manson and George W. Bush there."),
        words(&["buddy holly", "charles manson", "george bush"])
    );
    assert_eq!(parsed("She thanked Dr. Fredric Brandt."), words(&["fredric brandt"]));
    assert_eq!(parsed("He visited the Duke of York."), words(&["duke york"]));
}

#[test]
fn a_people_or_an_office_stands_in_no_person_place() {
    // "Australian" says where she is from, not who she is.
    check(
        "The Australian actress said she had turned the part down.",
        "The actress Rose Byrne said she had turned the part down.",
        &[],
        &["Rose Byrne"],
    );
    // An office is held by someone the premise may name.
    check(
        "The London Mayor warned that the party wanted to end Britain.",
        "Yesterday Boris Johnson warned that the party wanted to end Britain.",
        &[],
        &["Boris Johnson"],
    );
    // Two peoples do stand in each other's place.
    check(
        "The Norwegian explorer reached the pole first.",
        "The British explorer reached the pole first.",
        &[(FactKind::Name, "British", "Norwegian")],
        &[],
    );
}

#[test]
fn the_noun_a_number_counts_and_a_compound_direction_state_terms() {
    check(
        "Police said three men had threatened him with a gun.",
        "Police said three women had threatened him with a gun.",
        &[(FactKind::Term, "women", "men")],
        &[],
    );
    check(
        "She lived with her 65-year-old daughter Carolyn in the house.",
        "She lived with her 65-year-old son Carolyn in the house.",
        &[(FactKind::Term, "son", "daughter")],
        &[],
    );
    check(
        "Police said three men had threatened him.",
        "Three men threatened him, police said.",
        &[],
        &[],
    );
    check(
        "He serves at a temple in Kitakyushu, southwest Japan.",
        "He serves at a temple in northeast Japan.",
        &[(FactKind::Term, "northeast", "southwest")],
        &[],
    );
    check(
        "He serves at a temple in south-western Japan.",
        "He serves at a temple in southwest Japan.",
        &[],
        &[],
    );
}

#[test]
fn a_term_swapped_in_a_restating_sentence_conflicts_wherever_else_it_stands() {
    // The claim's "female" stands in the premise too, for the partner: only the sentence read
    // word by word shows that the claim's employee is not the premise's.
    check(
        "The male nurse and a female colleague ran the night shift at the clinic.",
        "The female nurse and a female colleague ran the night shift at the clinic.",
        &[(FactKind::Term, "female", "male")],
        &[],
    );
    // A relation that reads both ways, swapped between the same words.
    check(
        "She joined the council but resigned after only six weeks.",
        "She joined the council but resigned before only six weeks.",
        &[(FactKind::Term, "before", "after")],
        &[],
    );
    // The same sentence with the same term, or a sentence that says something else, does not.
    check(
        "The male nurse and a female colleague ran the night shift at the clinic.",
        "The male nurse and a female colleague ran the night shift at the clinic.",
        &[],
        &[],
    );
    check(
        "A female runner won the race before the storm arrived in the town.",
        "The storm hit the town after the festival.",
        &[],
        &[],
    );
    // Read together, the premise that swaps the term outweighs one that merely holds the word.
    let claim = "The female nurse and a female colleague ran the night shift at the clinic.";
    let swapped = "The male nurse and a female colleague ran the night shift at the clinic.";
    let elsewhere = "A female colleague said the clinic was busy.";
    for alignment in align_all(&[elsewhere, swapped], claim) {
        assert!(
            kinds(&alignment.conflicts).contains(&(FactKind::Term, "female", "male")),
            "{alignment:?}"
        );
    }
}

#[test]
fn comparisons_and_qualities_conflict_between_the_same_words_only() {
    check(
        "The minister tested negative for the virus on Monday.",
        "The minister tested positive for the virus on Monday.",
        &[(FactKind::Term, "positive", "negative")],
        &[],
    );
    check(
        "The new bridge is longer than the old one.",
        "The new bridge is shorter than the old one.",
        &[(FactKind::Term, "shorter", "longer")],
        &[],
    );
    // "Negative" about something else in the premise is no rival.
    check(
        "Reviews were negative, but the minister tested positive for the virus on Monday.",
        "The minister tested positive for the virus on Monday.",
        &[],
        &[],
    );
}

#[test]
fn a_name_given_another_place_in_a_restated_sentence_conflicts() {
    // A name swapped in: the sentence says the claim word for word but for the name.
    let show = "Ellie Grant, 22, was appearing on the show to discuss her condition. \
                Her sister Pettier watched from home.";
    let each =
        align_all(&[show], "Pettier, 22, was appearing on the show to discuss her condition.");
    assert_eq!(kinds(&each[0].conflicts), [(FactKind::Name, "Pettier", "Ellie Grant")], "{each:?}");
    // The two names turned round: a role, though the premise holds both.
    check(
        "Luigi Costa, 71, is accused of killing his elderly neighbour Terrence Freebody in July.",
        "Terrence Freebody, 71, is accused of killing his neighbour Luigi Costa.",
        &[
            (FactKind::Role, "Terrence Freebody", "Luigi Costa"),
            (FactKind::Role, "Luigi Costa", "Terrence Freebody"),
        ],
        &[],
    );
    // A relation that reads both ways says the same with its names turned round.
    for (premise, claim) in [
        (
            "Luigi Costa shook hands with Terrence Freebody outside the hall on Monday.",
            "Terrence Freebody shook hands with Luigi Costa outside the hall on Monday.",
        ),
        (
            "Luigi Costa was married to Maria Rossi for thirty years before the move.",
            "Maria Rossi was married to Luigi Costa for thirty years before the move.",
        ),
    ] {
        check(premise, claim, &[], &[]);
    }
    // "Against" does not make it read both ways.
    check(
        "Luigi Costa filed a lawsuit against Terrence Freebody over the fence last year.",
        "Terrence Freebody filed a lawsuit against Luigi Costa over the fence last year.",
        &[
            (FactKind::Role, "Terrence Freebody", "Luigi Costa"),
            (FactKind::Role, "Luigi Costa", "Terrence Freebody"),
        ],
        &[],
    );
    // A sentence restating the claim with its name holds it: the one giving its place to
    // another name is then no conflict, in one premise or in several.
    let claim = "The show was watched by Pettier on Monday.";
    let other = "The show was watched by Ellie Grant on Monday.";
    let same = "The show was watched by Pettier on Monday.";
    check(&format!("{other} {same}"), claim, &[], &[]);
    check(&format!("{same} {other}"), claim, &[], &[]);
    for alignment in align_all(&[other, same], claim) {
        assert!(alignment.conflicts.is_empty(), "{alignment:?}");
    }
    // Names listed in another order, a description in a name's place, and a name of another
    // kind in a person's place are not read as swaps.
    check(
        "Coleen Rooney and Nadine Coyle have joined the race.",
        "Nadine Coyle and Coleen Rooney have joined the race.",
        &[],
        &[],
    );
    check(
        "The 29-year-old from Chicago has Androgen Insensitivity Syndrome.",
        "Jennifer Pagonis has Androgen Insensitivity Syndrome.",
        &[],
        &["Pagonis"],
    );
    check(
        "On Monday, Headmaster David Mulford notified parents of the allegations in an email.",
        "On Monday, Newington College notified parents of the allegations in an email.",
        &[],
        &["Newington College"],
    );
}

#[test]
fn a_clause_set_off_after_a_name_does_not_hide_its_place() {
    // A relative clause after the name: the rest of the sentence says the claim word for word,
    // so the name in its place is swapped, though the clause makes the changed words longer.
    let premise = "Angela, who weighs only 16 lbs., celebrated her first birthday on March 23 \
                   with her sister. Her mother Rony baked a cake.";
    let claim = "Rony celebrated her first birthday on March 23.";
    assert_eq!(
        kinds(&Aligner::new(premise, claim).swapped()),
        [(FactKind::Name, "Rony", "Angela")]
    );
    check(premise, claim, &[(FactKind::Name, "Rony", "Angela")], &[]);
    // A clause the sentence's end closes is not passed over.
    let unclosed = "Her first birthday was celebrated by Angela, who weighs only 16 lbs.";
    assert!(
        Aligner::new(unclosed, "Her first birthday was celebrated by Rony.").swapped().is_empty()
    );
    // Words in brackets, or a clause saying where someone is from, are passed over when the
    // words around a name are compared.
    for premise in [
        "In the end Josh (pictured on the left, in red) discovered the tattoo the next day.",
        "In the end Josh, from Mossley in Greater Manchester, discovered the tattoo the next day.",
        "In the end Josh - from Mossley in Greater Manchester - discovered the tattoo the next day.",
    ] {
        check(
            premise,
            "His friends say Rob discovered the tattoo.",
            &[(FactKind::Name, "Rob", "Josh")],
            &[],
        );
    }
    let parse = |text| extract::parse(text, &extract::FirstWords::default());
    let name = |parsed: &extract::Parsed, name: &str| -> HashSet<String> {
        let fact = parsed
            .facts
            .iter()
            .find(|fact| matches!(&fact.value, extract::Value::Name(words) if words == &[name]))
            .expect("a name");
        compare::neighbours(parsed, fact)
    };
    // A list's next item, or a clause opening with an article, is no clause about the name
    // before it: the words past it are not the name's.
    for (text, cut, word) in [
        (
            "They welcomed twins, Cleo and Harrison, into their family, making Floyd a brother.",
            "They welcomed twins, Cleo and Harrison, into their family.",
            "harrison",
        ),
        (
            "After the match against Leeds, the manager resigned, the club said on Monday.",
            "After the match against Leeds, the manager resigned.",
            "leeds",
        ),
    ] {
        assert_eq!(name(&parse(text), word), name(&parse(cut), word), "{text}");
    }
    let angela = parse("Angela, who weighs 16 lbs., celebrated her birthday.");
    assert_eq!(compare::aside_end(&angela, 1), Some(5), "{:?}", angela.tokens);
    // A dash within the clause ("1990–1995") does not close it.
    let smith = parse("Smith, who coached Leeds in 1990–1995, resigned on Monday.");
    let resigned = smith.tokens.iter().position(|t| t.lower == "resigned");
    assert_eq!(compare::aside_end(&smith, 1), resigned, "{:?}", smith.tokens);
}

#[test]
fn a_capitalised_word_after_a_closing_quote_may_open_a_point_of_its_own() {
    // Summaries run their points together without a full stop: "Says" opens one, and names
    // no one.
    let premise = "He said the SNP want to 'end Britain, to decapitate Britannia' before \
                   the election. The Scottish Nationalists want higher taxes, Mr Johnson warned.";
    let alignment = align(
        premise,
        "The SNP want to 'end Britain, to decapitate Britannia' Says Scottish Nationalists want \
         higher taxes.",
    );
    let named: Vec<&str> = alignment
        .matched
        .iter()
        .chain(&alignment.unsupported)
        .chain(&alignment.conflicts)
        .filter(|pair| pair.kind == FactKind::Name)
        .map(|pair| pair.claim.as_str())
        .collect();
    assert_eq!(named, ["SNP", "Britain", "Britannia", "Scottish Nationalists"], "{alignment:?}");
    let names = |text: &str| -> Vec<extract::Value> {
        let parsed = extract::parse(text, &extract::FirstWords::default());
        parsed.facts.into_iter().map(|fact| fact.value).collect()
    };
    let name =
        |words: &[&str]| extract::Value::Name(words.iter().map(|w| (*w).to_owned()).collect());
    // A quote ending in an "s" closes too.
    assert_eq!(
        names("They want to 'smash the Tories' Says Scottish Nationalists."),
        [name(&["tories"]), name(&["scottish", "nationalists"])]
    );
    // A plural's possessive is no quote: "Theo Walcott" stays one name.
    assert_eq!(
        names("He praised the Saints' Theo Walcott."),
        [name(&["saints"]), name(&["theo", "walcott"])]
    );
}

#[test]
fn one_in_so_many_is_a_share_stated_by_its_second_number() {
    // Read as a count, the claim's "One" met the premise's "ten" (the premise's "that one in"
    // was never a count).
    let premise = "The figures show that one in 30 pupils ended up with at least ten A grades.";
    check(premise, "One in 30 children ended up with at least ten A grades.", &[], &[]);
    check(
        "About one in 1,000 people carry the gene.",
        "One in 1,000 people carry the gene.",
        &[],
        &[],
    );
    check(
        "The figures show that one in 30 pupils got top grades.",
        "One in 40 pupils got top grades.",
        &[(FactKind::Number, "40 pupils", "30 pupils")],
        &[],
    );
}

#[test]
fn another_sentence_about_the_claim_saying_the_same_not_so_holds_its_polarity() {
    let premise = "To reduce the risk of food poisoning, the captain and co-pilot usually eat \
                   different meals. If meals are provided by the airline, pilots do not eat the \
                   same reheated dishes.";
    check(
        premise,
        "To reduce the risk of food poisoning, pilots do not eat the same meals.",
        &[],
        &[],
    );
    // Another sentence negating something else, or said of someone else, holds nothing: "did
    // not sign" stands against "signed".
    for other in ["He did not discuss the contract terms.", "Jones did not sign the contract."] {
        let alignment = align(
            &format!("Smith signed the contract on Friday. {other}"),
            "Smith did not sign the contract.",
        );
        assert_eq!(
            kinds(&alignment.conflicts),
            [(FactKind::Polarity, "did not sign", "(not negated)")],
            "{alignment:?}"
        );
    }
    let alignment = align(
        "Smith signed the contract on Friday. He did not discuss the contract terms.",
        "Smith did not sign the contract.",
    );
    assert_eq!(
        kinds(&alignment.conflicts),
        [(FactKind::Polarity, "did not sign", "(not negated)")],
        "{alignment:?}"
    );
    // Without it, the best sentence's polarity stands against the claim's.
    let premise = "To reduce the risk of food poisoning, the captain and co-pilot usually eat \
                   the same meals.";
    let alignment =
        align(premise, "To reduce the risk of food poisoning, pilots do not eat the same meals.");
    assert_eq!(
        kinds(&alignment.conflicts),
        [(FactKind::Polarity, "do not eat", "(not negated)")],
        "{alignment:?}"
    );
}

#[test]
fn the_state_or_county_after_a_place_stands_only_in_another_such_place() {
    // "London" after "Battersea," is where Battersea lies, not who was linked to it.
    check(
        "Top of the Pops star Jimmy Savile was known to frequent a brothel in Battersea. The \
         flat in Battersea, South West London was used by paedophiles.",
        "The band were linked to the brothel in Battersea, London.",
        &[],
        &[],
    );
    // Nor is a state contradicted by a street.
    check(
        "She was found by two roommates at their home on Washington Avenue in Fredericksburg.",
        "She was found by two roommates at their home in Fredericksburg, Virginia.",
        &[],
        &["Virginia"],
    );
    // Not a person after a place that opens the sentence, nor one a verb follows.
    for claim in [
        "In London, Boris Johnson said the country would leave.",
        "Speaking in Paris, Boris Johnson, the minister, said the country would leave.",
        "The minister spoke in Paris, Boris Johnson said the country would leave.",
    ] {
        let alignment = align("Rishi Sunak said the country would leave.", claim);
        assert_eq!(
            kinds(&alignment.conflicts),
            [(FactKind::Name, "Boris Johnson", "Rishi Sunak")],
            "{claim}: {alignment:?}"
        );
    }
    // Two such places do stand in each other's place.
    check(
        "Julie McKenzie, 53, from Bushey, Hertfordshire, had a nagging back pain.",
        "Julie McKenzie, 53, from Bushey, Essex, had a nagging back pain.",
        &[(FactKind::Name, "Essex", "Hertfordshire")],
        &[],
    );
}

#[test]
fn a_name_meets_its_form_with_a_letter_hyphened_on() {
    let premise = "Using UV-C light they proved a high germ-kill rate.";
    check(premise, "The project uses UV light to kill germs.", &[], &[]);
    let words = |text: &str| vec![text.to_owned()];
    assert!(compare::names_match(&words("uv"), &words("uv-c")));
    assert!(compare::names_match(&words("f-16"), &words("f")));
    assert!(!compare::names_match(&words("cd"), &words("cd-rw")));
    assert!(!compare::names_match(&words("uk"), &words("uk-based")));
}

#[test]
fn not_one_of_two_members_with_nothing_between_is_the_other() {
    let premise = "Adam Leheup, 34, was cleared of rape by a jury at Blackfriars Crown Court.";
    check(premise, "Adam Leheup was found not guilty of rape by a jury.", &[], &[]);
    check(
        premise,
        "Adam Leheup was found guilty of rape by a jury.",
        &[(FactKind::Term, "guilty", "cleared")],
        &[],
    );
    check("A jury cleared Smith of fraud.", "The jury found Smith not guilty of fraud.", &[], &[]);
    // A plea is no verdict.
    for premise in ["Jones was convicted of fraud.", "Jones was cleared of fraud."] {
        let claim = "Jones, who had pleaded not guilty, was cleared of fraud.";
        let alignment = align(premise, claim);
        assert!(
            alignment.conflicts.iter().all(|pair| pair.claim != "guilty"),
            "{premise}: {alignment:?}"
        );
    }
    // Every set read so has two members.
    for name in lexicon::COMPLEMENTARY_SETS {
        assert!(
            lexicon::CLOSED_SETS.iter().any(|set| set.name == *name && set.members.len() == 2),
            "{name}"
        );
    }
    // A verb said not to be is no rival: "to not lose data" wins nothing.
    let alignment = align(
        "Police paid the ransom in a bid to avoid losing the data.",
        "Police paid the ransom in a bid to not lose the data.",
    );
    assert!(alignment.conflicts.iter().all(|pair| pair.kind != FactKind::Term), "{alignment:?}");
}
