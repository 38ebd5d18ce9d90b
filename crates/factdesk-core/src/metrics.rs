//! Figures for a binary judge ("is the claim supported?") scored against gold labels: balanced
//! accuracy at a threshold, ROC AUC, expected calibration error, and the precision and recall
//! of "not supported" (the answer a fact-checker acts on). Pure functions, shared by
//! `factdesk eval` and the benchmarks.

use serde::Serialize;

/// One judged item: its gold label and the judge's probability that it is supported.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scored {
    pub supported: bool,
    pub probability: f64,
}

/// Bins of the expected calibration error.
pub const CALIBRATION_BINS: usize = 10;

/// The figures; `None` where undefined (e.g. no item of one kind).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BinaryFigures {
    pub items: usize,
    pub balanced_accuracy: Option<f64>,
    pub roc_auc: Option<f64>,
    pub expected_calibration_error: Option<f64>,
    /// Of the items judged not supported, the share that are not.
    pub not_supported_precision: Option<f64>,
    /// Of the items that are not supported, the share judged so.
    pub not_supported_recall: Option<f64>,
}

impl BinaryFigures {
    /// Figures for `items`, an item judged supported when its probability is at least
    /// `threshold`.
    pub fn of(items: &[Scored], threshold: f64) -> BinaryFigures {
        let positives = items.iter().filter(|item| item.supported).count();
        let negatives = items.len() - positives;
        let judged_supported = |item: &&Scored| item.probability >= threshold;
        let true_positives = items.iter().filter(|i| i.supported).filter(judged_supported).count();
        let true_negatives =
            items.iter().filter(|i| !i.supported).filter(|i| !judged_supported(i)).count();
        let judged_not = items.iter().filter(|i| !judged_supported(i)).count();
        let rate = |n: usize, d: usize| (d > 0).then(|| n as f64 / d as f64);
        let balanced_accuracy =
            match (rate(true_positives, positives), rate(true_negatives, negatives)) {
                (Some(tpr), Some(tnr)) => Some((tpr + tnr) / 2.0),
                _ => None,
            };
        BinaryFigures {
            items: items.len(),
            balanced_accuracy,
            roc_auc: roc_auc(items),
            expected_calibration_error: expected_calibration_error(items, CALIBRATION_BINS),
            not_supported_precision: rate(true_negatives, judged_not),
            not_supported_recall: rate(true_negatives, negatives),
        }
    }
}

/// The probability that a random supported item scores above a random unsupported one (ties
/// count half); `None` without items of both kinds.
pub fn roc_auc(items: &[Scored]) -> Option<f64> {
    let mut sorted: Vec<&Scored> = items.iter().collect();
    sorted.sort_by(|a, b| a.probability.total_cmp(&b.probability));
    let positives = items.iter().filter(|item| item.supported).count() as f64;
    let negatives = items.len() as f64 - positives;
    if positives == 0.0 || negatives == 0.0 {
        return None;
    }
    // Mann-Whitney: the rank sum of the positives, ties sharing their mean rank.
    let mut rank_sum = 0.0;
    let mut start = 0;
    while start < sorted.len() {
        let mut end = start;
        while end < sorted.len() && sorted[end].probability == sorted[start].probability {
            end += 1;
        }
        let mean_rank = (start + end + 1) as f64 / 2.0;
        rank_sum +=
            mean_rank * sorted[start..end].iter().filter(|item| item.supported).count() as f64;
        start = end;
    }
    Some((rank_sum - positives * (positives + 1.0) / 2.0) / (positives * negatives))
}

/// The mean gap between confidence and accuracy over `bins` equal-width probability bins,
/// weighted by the items in each (probabilities are those of "supported"); `None` without
/// items.
pub fn expected_calibration_error(items: &[Scored], bins: usize) -> Option<f64> {
    if items.is_empty() || bins == 0 {
        return None;
    }
    let mut count = vec![0usize; bins];
    let mut probability = vec![0.0; bins];
    let mut supported = vec![0usize; bins];
    for item in items {
        let p = item.probability.clamp(0.0, 1.0);
        let bin = ((p * bins as f64) as usize).min(bins - 1);
        count[bin] += 1;
        probability[bin] += p;
        supported[bin] += usize::from(item.supported);
    }
    let total = items.len() as f64;
    let error = (0..bins)
        .filter(|&bin| count[bin] > 0)
        .map(|bin| {
            let n = count[bin] as f64;
            (n / total) * (probability[bin] / n - supported[bin] as f64 / n).abs()
        })
        .sum();
    Some(error)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(list: &[(bool, f64)]) -> Vec<Scored> {
        list.iter().map(|&(supported, probability)| Scored { supported, probability }).collect()
    }

    #[test]
    fn auc_counts_ordered_pairs_and_ties_half() {
        assert_eq!(
            roc_auc(&items(&[(true, 0.9), (true, 0.8), (false, 0.1), (false, 0.2)])),
            Some(1.0)
        );
        assert_eq!(roc_auc(&items(&[(true, 0.1), (false, 0.9)])), Some(0.0));
        assert_eq!(roc_auc(&items(&[(true, 0.5), (false, 0.5)])), Some(0.5));
        // 3 of 4 positive/negative pairs ordered right.
        assert_eq!(
            roc_auc(&items(&[(true, 0.9), (true, 0.3), (false, 0.5), (false, 0.1)])),
            Some(0.75)
        );
        assert_eq!(roc_auc(&items(&[(true, 0.9)])), None);
    }

    #[test]
    fn calibration_error_is_the_weighted_gap_per_bin() {
        // Always 0.95 sure, right half of the time: a gap of 0.45.
        let overconfident = items(&[(true, 0.95), (false, 0.95)]);
        assert!((expected_calibration_error(&overconfident, 10).unwrap() - 0.45).abs() < 1e-12);
        let perfect = items(&[(true, 1.0), (false, 0.0)]);
        assert_eq!(expected_calibration_error(&perfect, 10), Some(0.0));
        assert_eq!(expected_calibration_error(&[], 10), None);
    }

    #[test]
    fn figures_at_a_threshold() {
        let list = items(&[(true, 0.9), (true, 0.4), (false, 0.2), (false, 0.6), (false, 0.1)]);
        let figures = BinaryFigures::of(&list, 0.5);
        // TPR 1/2, TNR 2/3.
        assert!((figures.balanced_accuracy.unwrap() - (0.5 + 2.0 / 3.0) / 2.0).abs() < 1e-12);
        // Judged not supported: 0.4, 0.2, 0.1, two of them rightly; 2 of 3 unsupported found.
        assert!((figures.not_supported_precision.unwrap() - 2.0 / 3.0).abs() < 1e-12);
        assert!((figures.not_supported_recall.unwrap() - 2.0 / 3.0).abs() < 1e-12);
        // A judge that says "supported" to everything: no balanced accuracy above chance.
        let yes = BinaryFigures::of(&items(&[(true, 0.9), (false, 0.9)]), 0.5);
        assert_eq!(yes.balanced_accuracy, Some(0.5));
        assert_eq!(yes.not_supported_precision, None);
        assert_eq!(yes.not_supported_recall, Some(0.0));
    }
}
