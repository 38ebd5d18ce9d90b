//! A collection's dashboard in figures: how many claims have each machine verdict and each
//! verdict after review, the machine's verdicts against the people's (a confusion table whose
//! cells name the claims behind them), the machine's confidence in ten bins split by whether a
//! person or a gold label agrees with its verdict (a calibration view: if confidence meant
//! something, the high bins would agree more often), and the checks made per day.
//!
//! The figures are computed here from a report's items (each claim's newest check and review)
//! and the times of every check of the collection, so that the desktop app's dashboard and the
//! HTML report ([`crate::charts`]) draw the same numbers. No I/O: the core reads the store.

use factdesk_model::Verdict;
use serde::Serialize;

use crate::ReportItem;

/// Bins of the confidence histogram, each a tenth of [0, 1] (the last one holds 1.0).
pub const CONFIDENCE_BINS: usize = 10;

/// The figures of a collection's dashboard.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct Dashboard {
    pub collection: String,
    pub claims: usize,
    /// Claims with a check (their newest one is counted below).
    pub checked: usize,
    /// Checked claims whose newest check a person reviewed.
    pub reviewed: usize,
    /// Claims with a gold label.
    pub labelled: usize,
    /// Per verdict, in [`Verdict::ALL`] order: the newest checks giving it, and the claims
    /// holding it after review (the reviewer's verdict where there is one).
    pub verdicts: Vec<VerdictCount>,
    /// The machine's verdict (one row per verdict, in [`Verdict::ALL`] order) against the
    /// review: first the claims not reviewed, then one cell per reviewer's verdict.
    pub machine_vs_review: Vec<ReviewRow>,
    /// The confidence of the newest checks that have one, in [`CONFIDENCE_BINS`] bins.
    pub confidence: Vec<ConfidenceBin>,
    /// Checks whose agreement is judged against a gold label (the claim has one) and against
    /// a review (no gold label, reviewed).
    pub judged_by_gold: usize,
    pub judged_by_review: usize,
    /// Newest checks without a confidence (left out of the histogram).
    pub without_confidence: usize,
    /// Every check of the collection (not only the newest) and the latest reviews, per UTC
    /// day, oldest first; days without either are left out.
    pub per_day: Vec<DayCount>,
}

/// One verdict's counts.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct VerdictCount {
    pub verdict: Verdict,
    /// Newest checks giving this verdict.
    pub machine: usize,
    /// Claims holding it after review.
    pub after_review: usize,
}

/// The claims of one machine verdict by what the review made of them.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct ReviewRow {
    pub machine: Verdict,
    /// The claims of this machine verdict by review: `review` none for not reviewed.
    pub cells: Vec<ReviewCell>,
}

/// One cell of the machine-against-review table.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct ReviewCell {
    /// The reviewer's verdict; none for claims not reviewed.
    pub review: Option<Verdict>,
    pub claims: usize,
}

/// The newest checks whose confidence falls in `[from, to)` (the last bin includes 1.0).
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct ConfidenceBin {
    pub from: f64,
    pub to: f64,
    /// The gold label, else the review, gives the machine's verdict.
    pub agree: usize,
    /// The gold label, else the review, gives another verdict.
    pub disagree: usize,
    /// Neither a gold label nor a review.
    pub unjudged: usize,
}

/// What happened on one UTC day.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct DayCount {
    /// YYYY-MM-DD.
    pub day: String,
    pub checks: usize,
    /// Latest reviews of newest checks made that day.
    pub reviews: usize,
}

/// The bin of a confidence: `None` for a value outside [0, 1] or not a number.
fn confidence_bin(confidence: f64) -> Option<usize> {
    if !(0.0..=1.0).contains(&confidence) {
        return None;
    }
    Some(((confidence * CONFIDENCE_BINS as f64) as usize).min(CONFIDENCE_BINS - 1))
}

/// The day of an RFC 3339 time as stored (UTC): its first ten characters, when they are a date.
fn day_of(time: &str) -> Option<&str> {
    let day = time.get(..10)?;
    let digits = |range: std::ops::Range<usize>| day[range].bytes().all(|b| b.is_ascii_digit());
    (digits(0..4) && &day[4..5] == "-" && digits(5..7) && &day[7..8] == "-" && digits(8..10))
        .then_some(day)
}

impl Dashboard {
    /// The dashboard of `collection` from its claims with their newest checks (`items`) and
    /// the times of all its checks (`check_times`, RFC 3339).
    pub fn of(collection: &str, items: &[ReportItem], check_times: &[String]) -> Dashboard {
        let mut dashboard = Dashboard {
            collection: collection.to_owned(),
            claims: items.len(),
            checked: 0,
            reviewed: 0,
            labelled: items.iter().filter(|item| item.gold_label.is_some()).count(),
            verdicts: Verdict::ALL
                .iter()
                .map(|&verdict| VerdictCount { verdict, machine: 0, after_review: 0 })
                .collect(),
            machine_vs_review: Verdict::ALL
                .iter()
                .map(|&machine| ReviewRow {
                    machine,
                    cells: std::iter::once(None)
                        .chain(Verdict::ALL.iter().map(|&verdict| Some(verdict)))
                        .map(|review| ReviewCell { review, claims: 0 })
                        .collect(),
                })
                .collect(),
            confidence: (0..CONFIDENCE_BINS)
                .map(|bin| ConfidenceBin {
                    from: bin as f64 / CONFIDENCE_BINS as f64,
                    to: (bin + 1) as f64 / CONFIDENCE_BINS as f64,
                    agree: 0,
                    disagree: 0,
                    unjudged: 0,
                })
                .collect(),
            judged_by_gold: 0,
            judged_by_review: 0,
            without_confidence: 0,
            per_day: Vec::new(),
        };
        let mut days: std::collections::BTreeMap<String, (usize, usize)> = Default::default();
        for time in check_times {
            if let Some(day) = day_of(time) {
                days.entry(day.to_owned()).or_default().0 += 1;
            }
        }
        for item in items {
            let Some(stored) = &item.check else { continue };
            dashboard.checked += 1;
            let machine = stored.check.verdict;
            let review = stored.review.as_ref().map(|review| review.verdict);
            if let Some(reviewed) = &stored.review {
                dashboard.reviewed += 1;
                if let Some(day) = day_of(&reviewed.created_at) {
                    days.entry(day.to_owned()).or_default().1 += 1;
                }
            }
            for count in &mut dashboard.verdicts {
                count.machine += usize::from(count.verdict == machine);
                count.after_review += usize::from(count.verdict == review.unwrap_or(machine));
            }
            if let Some(row) =
                dashboard.machine_vs_review.iter_mut().find(|row| row.machine == machine)
                && let Some(cell) = row.cells.iter_mut().find(|cell| cell.review == review)
            {
                cell.claims += 1;
            }
            let reference = match (item.gold_label, review) {
                (Some(gold), _) => {
                    dashboard.judged_by_gold += 1;
                    Some(gold)
                }
                (None, Some(review)) => {
                    dashboard.judged_by_review += 1;
                    Some(review)
                }
                (None, None) => None,
            };
            let Some(bin) = stored.check.confidence.and_then(confidence_bin) else {
                dashboard.without_confidence += 1;
                continue;
            };
            let bin = &mut dashboard.confidence[bin];
            match reference {
                Some(reference) if reference == machine => bin.agree += 1,
                Some(_) => bin.disagree += 1,
                None => bin.unjudged += 1,
            }
        }
        dashboard.per_day = days
            .into_iter()
            .map(|(day, (checks, reviews))| DayCount { day, checks, reviews })
            .collect();
        dashboard
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confidences_fall_in_tenths_and_one_in_the_last_bin() {
        assert_eq!(confidence_bin(0.0), Some(0));
        assert_eq!(confidence_bin(0.05), Some(0));
        assert_eq!(confidence_bin(0.1), Some(1));
        assert_eq!(confidence_bin(0.95), Some(9));
        assert_eq!(confidence_bin(1.0), Some(9));
        assert_eq!(confidence_bin(1.2), None);
        assert_eq!(confidence_bin(f64::NAN), None);
    }

    #[test]
    fn a_day_is_the_date_of_a_time() {
        assert_eq!(day_of("2026-11-27T23:01:02Z"), Some("2026-11-27"));
        assert_eq!(day_of("2026-11-27"), Some("2026-11-27"));
        assert_eq!(day_of("yesterday at noon"), None);
        assert_eq!(day_of("2026"), None);
    }
}
