//! The facts behind a verdict in reports: the premise that decided the check, what of the
//! claim it states differently (conflicts) or not at all (unsupported), and where those spans
//! are in the claim and in the premise, so each format can mark them. Spans are found by their
//! first occurrence in the text, case-sensitive; a span not found there is simply not marked.

use factdesk_model::{ClaimCheck, EvidenceSource, FactAlignment, FactKind, PremiseCheck};

/// The premise a check's verdict rests on ([`ClaimCheck::deciding_premise`]).
pub fn deciding_premise(check: &ClaimCheck) -> Option<&PremiseCheck> {
    check.deciding_premise()
}

/// How a span is marked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mark {
    /// The claim states it, the premise states something else.
    Conflict,
    /// The claim states it, the premise does not.
    Unsupported,
}

impl Mark {
    /// The HTML class of its `<mark>`.
    pub(crate) fn class(self) -> &'static str {
        match self {
            Mark::Conflict => "conflict",
            Mark::Unsupported => "unsupported",
        }
    }
}

/// The deciding premise of a check whose facts conflict with it or are missing from it.
pub(crate) struct FactsShown<'a> {
    pub(crate) facts: &'a FactAlignment,
    /// The text the facts were aligned with: the claim sentence the premise was judged
    /// against, or the whole claim.
    pub(crate) claim: &'a str,
    /// The premise text (its sentences joined).
    pub(crate) evidence: &'a str,
    pub(crate) source: Option<&'a EvidenceSource>,
}

impl FactsShown<'_> {
    /// "claim: 412 metres · evidence: 212 metres; …", when a fact conflicts.
    pub(crate) fn conflicts(&self) -> Option<String> {
        let pairs: Vec<String> = self
            .facts
            .conflicts
            .iter()
            .map(|pair| format!("claim: {} · evidence: {}", pair.claim, pair.evidence))
            .collect();
        (!pairs.is_empty()).then(|| pairs.join("; "))
    }

    /// "1887, Oslo", when a fact is missing from the premise.
    pub(crate) fn unsupported(&self) -> Option<String> {
        // An unsupported polarity is a belief frame of the evidence, not a span of the claim.
        let (reported, missing): (Vec<_>, Vec<_>) =
            self.facts.unsupported.iter().partition(|pair| pair.kind == FactKind::Polarity);
        let mut parts: Vec<String> = missing.iter().map(|pair| pair.claim.clone()).collect();
        parts.extend(
            reported
                .iter()
                .map(|pair| format!("(the evidence reports it only as a {})", pair.claim)),
        );
        (!parts.is_empty()).then(|| parts.join(", "))
    }

    /// The claim cut into pieces, conflicting and unsupported spans marked.
    pub(crate) fn claim_pieces(&self) -> Vec<(&str, Option<Mark>)> {
        let conflicts =
            self.facts.conflicts.iter().map(|pair| (pair.claim.as_str(), Mark::Conflict));
        let unsupported = self
            .facts
            .unsupported
            .iter()
            .filter(|pair| pair.kind != FactKind::Polarity)
            .map(|pair| (pair.claim.as_str(), Mark::Unsupported));
        pieces(self.claim, conflicts.chain(unsupported))
    }

    /// The premise cut into pieces, the spans it states in place of the claim's marked.
    pub(crate) fn evidence_pieces(&self) -> Vec<(&str, Option<Mark>)> {
        let conflicts =
            self.facts.conflicts.iter().map(|pair| (pair.evidence.as_str(), Mark::Conflict));
        pieces(self.evidence, conflicts)
    }

    /// How the premise's source is named: its title, else its location.
    pub(crate) fn source_name(&self) -> Option<String> {
        let source = self.source?;
        match &source.title {
            Some(title) if !title.trim().is_empty() => Some(title.clone()),
            _ => Some(crate::source_location(source)),
        }
    }
}

/// The deciding premise of `check`, when the claim states facts it contradicts or lacks.
pub(crate) fn shown(check: &ClaimCheck) -> Option<FactsShown<'_>> {
    let premise = deciding_premise(check)?;
    let facts = &premise.facts;
    if facts.conflicts.is_empty() && facts.unsupported.is_empty() {
        return None;
    }
    Some(FactsShown {
        facts,
        claim: premise.claim_part.as_deref().unwrap_or(&check.claim),
        evidence: &premise.premise,
        source: check.sources.get(premise.source),
    })
}

/// The conflicts and missing facts of a check's deciding premise in one line (the CSV cell):
/// "claim: 412 metres · evidence: 212 metres; not in the evidence: 1887".
pub(crate) fn summary(check: &ClaimCheck) -> Option<String> {
    deciding_premise(check)?.facts.summary()
}

/// `text` cut at the first occurrence of each span (empty spans, spans not found and spans
/// overlapping an earlier-starting one are left unmarked), in order.
fn pieces<'a, 'b>(
    text: &'a str,
    spans: impl Iterator<Item = (&'b str, Mark)>,
) -> Vec<(&'a str, Option<Mark>)> {
    let mut found: Vec<(usize, usize, Mark)> = spans
        .filter(|(span, _)| !span.is_empty())
        .filter_map(|(span, mark)| text.find(span).map(|start| (start, start + span.len(), mark)))
        .collect();
    found.sort_by_key(|&(start, end, _)| (start, std::cmp::Reverse(end)));
    let mut out = Vec::with_capacity(found.len() * 2 + 1);
    let mut at = 0;
    for (start, end, mark) in found {
        if start < at {
            continue;
        }
        if start > at {
            out.push((&text[at..start], None));
        }
        out.push((&text[start..end], Some(mark)));
        at = end;
    }
    if at < text.len() {
        out.push((&text[at..], None));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_are_cut_at_their_first_occurrence_without_overlaps() {
        let text = "It is 412 metres tall, 412 metres, built in 1887.";
        let spans = [
            ("1887", Mark::Unsupported),
            ("412 metres", Mark::Conflict),
            ("412", Mark::Unsupported),
            ("", Mark::Conflict),
            ("Oslo", Mark::Unsupported),
        ];
        assert_eq!(
            pieces(text, spans.into_iter()),
            vec![
                ("It is ", None),
                ("412 metres", Some(Mark::Conflict)),
                (" tall, 412 metres, built in ", None),
                ("1887", Some(Mark::Unsupported)),
                (".", None),
            ]
        );
        assert_eq!(pieces("", spans.into_iter()), Vec::new());
        assert_eq!(pieces("Paris", spans.into_iter()), vec![("Paris", None)]);
    }
}
