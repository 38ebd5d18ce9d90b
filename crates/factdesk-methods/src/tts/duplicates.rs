//! Near-duplicate sources, collapsed before scoring (the method assumes independent sources):
//! two texts are copies when the Jaccard similarity of their sets of word 5-grams (lower-cased
//! words) reaches a threshold; copies of copies are one group.

use std::collections::HashSet;

/// The similarity at which two sources are one by default.
pub const DEFAULT_THRESHOLD: f64 = 0.8;

fn shingles(text: &str) -> HashSet<Vec<String>> {
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    if words.len() < 5 {
        return std::iter::once(words).collect();
    }
    words.windows(5).map(<[String]>::to_vec).collect()
}

/// The Jaccard similarity of the two texts' word 5-grams.
pub fn similarity(a: &str, b: &str) -> f64 {
    let (a, b) = (shingles(a), shingles(b));
    let union = a.union(&b).count();
    if union == 0 { 1.0 } else { a.intersection(&b).count() as f64 / union as f64 }
}

/// Groups of `texts` (indices, in order; each group's first is the one kept) whose members are
/// copies of one another at `threshold`.
pub fn groups(texts: &[&str], threshold: f64) -> Vec<Vec<usize>> {
    let sets: Vec<HashSet<Vec<String>>> = texts.iter().map(|text| shingles(text)).collect();
    let mut parent: Vec<usize> = (0..texts.len()).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for i in 0..texts.len() {
        for j in i + 1..texts.len() {
            let union = sets[i].union(&sets[j]).count();
            let shared = sets[i].intersection(&sets[j]).count();
            let similar = if union == 0 { 1.0 } else { shared as f64 / union as f64 };
            if similar >= threshold {
                let (a, b) = (root(&mut parent, i), root(&mut parent, j));
                parent[a.max(b)] = a.min(b);
            }
        }
    }
    let mut out: Vec<Vec<usize>> = Vec::new();
    let mut index_of = std::collections::HashMap::new();
    for i in 0..texts.len() {
        let r = root(&mut parent, i);
        let slot = *index_of.entry(r).or_insert_with(|| {
            out.push(Vec::new());
            out.len() - 1
        });
        out[slot].push(i);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_are_grouped_and_distinct_sources_kept_apart() {
        let a = "The bridge closed on Monday after inspectors found cracks in two of its piers.";
        let copy = "THE BRIDGE closed on Monday after inspectors found cracks in two of its piers!";
        let other = "Repairs to the bridge will take six months and cost four million euros.";
        assert_eq!(similarity(a, copy), 1.0);
        assert!(similarity(a, other) < 0.1);
        assert_eq!(groups(&[a, other, copy], DEFAULT_THRESHOLD), [vec![0, 2], vec![1]]);
        // Chains join: a ~ b and b ~ c make one group though a and c are further apart.
        let b = "The bridge closed on Monday after inspectors found cracks in two of its piers and the river rose.";
        let c = "Inspectors found cracks in two of its piers and the river rose by a metre overnight on Monday.";
        assert!(
            similarity(a, b) >= 0.3 && similarity(b, c) >= 0.3,
            "{} {}",
            similarity(a, b),
            similarity(b, c)
        );
        assert!(similarity(a, c) < 0.3, "{}", similarity(a, c));
        assert_eq!(groups(&[a, other, b, c], 0.3), [vec![0, 2, 3], vec![1]]);
        assert_eq!(groups(&[], 0.8), Vec::<Vec<usize>>::new());
        // Short texts compare as a whole.
        assert_eq!(similarity("Yes.", "yes"), 1.0);
    }
}
