//! Scoring sources from their stances, as Truthful Text Summarization defines it. When source
//! i is scored, T_i is the list of K claims drafted from every *other* source, and `stances[j][k]`
//! is source j's stance on claim k (support 1, refute 0, neutral = abstains).
//!
//! - Correlated agreement (multi-task peer prediction): one random permutation π of 0..K,
//!   shared by every peer, and for peer j ≠ i and claim k
//!   s_ij(k) = 1[r_i(k) = r_j(k)] − 1[r_i(π(k)) = r_j(π(k+1))] (indices mod K), where an
//!   indicator is 1 only if both spoke and agree; score_i is the mean over peers of the mean
//!   over claims (or a weighted mean over peers with reputation weights). The bonus rewards
//!   agreeing on the same claim, the penalty what agreement two unrelated claims would give
//!   anyway, so a source that says the same thing whatever the claim scores 0.
//! - The majority rule, for comparison: +1 where both spoke and agree, −1 where both spoke and
//!   disagree, 0 where either abstained, averaged the same way.
//! - A source is kept when its score is at least τ (0.06 by default).

use factdesk_model::ciber::Stance;

/// The inclusion threshold τ the paper uses.
pub const DEFAULT_TAU: f64 = 0.06;

/// Both spoke (support or refute) and said the same.
fn agree(a: Stance, b: Stance) -> bool {
    a != Stance::Neutral && a == b
}

/// A permutation of 0..`k` drawn by a Fisher–Yates shuffle seeded with `seed` (xorshift64*):
/// the same seed gives the same permutation, so a score can be recomputed.
pub fn permutation(k: usize, seed: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..k).collect();
    let mut state = seed ^ 0x9e37_79b9_7f4a_7c15;
    if state == 0 {
        state = 1;
    }
    for i in (1..k).rev() {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        let j = (state.wrapping_mul(0x2545_f491_4f6c_dd1d) % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
    order
}

/// Checks the shapes: `i` a source, every source with one stance per claim, the permutation
/// over the claims, weights (if any) one per source and not negative.
fn check(
    i: usize,
    stances: &[Vec<Stance>],
    permutation: Option<&[usize]>,
    weights: Option<&[f64]>,
) -> Result<usize, String> {
    let Some(own) = stances.get(i) else {
        return Err(format!("source {} is not among the {} sources", i + 1, stances.len()));
    };
    let k = own.len();
    if let Some(j) = stances.iter().position(|row| row.len() != k) {
        return Err(format!(
            "source {} has {} stances for {k} claims; every source needs one per claim",
            j + 1,
            stances[j].len()
        ));
    }
    if let Some(permutation) = permutation {
        let mut seen = vec![false; k];
        let valid = permutation.len() == k
            && permutation.iter().all(|&p| p < k && !std::mem::replace(&mut seen[p], true));
        if !valid {
            return Err(format!("the permutation is not one of the {k} claims"));
        }
    }
    let bad_weight = |w: &f64| !(w.is_finite() && *w >= 0.0);
    if weights.is_some_and(|w| w.len() != stances.len() || w.iter().any(bad_weight)) {
        return Err("reputation weights: one non-negative number per source".into());
    }
    Ok(k)
}

/// The weighted mean over peers j ≠ i of `per_peer(j)`; 0 without peers (or peer weight).
fn over_peers(
    i: usize,
    sources: usize,
    weights: Option<&[f64]>,
    per_peer: impl Fn(usize) -> f64,
) -> f64 {
    let mut total = 0.0;
    let mut weight = 0.0;
    for j in (0..sources).filter(|&j| j != i) {
        let w = weights.map_or(1.0, |weights| weights[j]);
        total += w * per_peer(j);
        weight += w;
    }
    if weight > 0.0 { total / weight } else { 0.0 }
}

/// Source `i`'s correlated-agreement score on its claims (see the module documentation).
/// With no claims the score is 0; with one claim bonus and penalty coincide and it is 0 too.
pub fn correlated_agreement(
    i: usize,
    stances: &[Vec<Stance>],
    permutation: &[usize],
    weights: Option<&[f64]>,
) -> Result<f64, String> {
    let k = check(i, stances, Some(permutation), weights)?;
    if k == 0 {
        return Ok(0.0);
    }
    let own = &stances[i];
    Ok(over_peers(i, stances.len(), weights, |j| {
        let peer = &stances[j];
        (0..k)
            .map(|c| {
                let bonus = agree(own[c], peer[c]);
                let (a, b) = (permutation[c], permutation[(c + 1) % k]);
                let penalty = agree(own[a], peer[b]);
                f64::from(u8::from(bonus)) - f64::from(u8::from(penalty))
            })
            .sum::<f64>()
            / k as f64
    }))
}

/// Source `i`'s majority-rule score: +1 agree, −1 disagree, 0 where either abstained.
pub fn majority_score(
    i: usize,
    stances: &[Vec<Stance>],
    weights: Option<&[f64]>,
) -> Result<f64, String> {
    let k = check(i, stances, None, weights)?;
    if k == 0 {
        return Ok(0.0);
    }
    let own = &stances[i];
    Ok(over_peers(i, stances.len(), weights, |j| {
        (0..k)
            .map(|c| match (own[c], stances[j][c]) {
                (Stance::Neutral, _) | (_, Stance::Neutral) => 0.0,
                (a, b) if a == b => 1.0,
                _ => -1.0,
            })
            .sum::<f64>()
            / k as f64
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use Stance::{Neutral as A, Refute as C, Support as S};

    #[test]
    fn scores_are_worked_by_hand() {
        // Three sources on K = 3 claims, source 0 scored, π = (2, 0, 1).
        let stances = vec![vec![S, C, S], vec![S, C, A], vec![C, C, S]];
        let pi = [2, 0, 1];
        // Peer 1: bonus k0 S=S 1, k1 C=C 1, k2 S vs A 0; penalties (π(k), π(k+1)):
        // (2,0) S vs S 1, (0,1) S vs C 0, (1,2) C vs A 0 → (1 + 1 + 0 − 1) / 3 = 1/3.
        // Peer 2: bonus k0 S vs C 0, k1 1, k2 1; penalties (2,0) S vs C 0, (0,1) S vs C 0,
        // (1,2) C vs S 0 → 2/3. Mean: 1/2.
        let ca = correlated_agreement(0, &stances, &pi, None).unwrap();
        assert!((ca - 0.5).abs() < 1e-12, "{ca}");
        // Weighted: peer 2 counts 3 times peer 1 → (1/3 + 3·2/3) / 4 = 7/12.
        let weighted = correlated_agreement(0, &stances, &pi, Some(&[1.0, 1.0, 3.0])).unwrap();
        assert!((weighted - 7.0 / 12.0).abs() < 1e-12, "{weighted}");
        // Majority: peer 1 (+1 +1 0)/3, peer 2 (−1 +1 +1)/3 → (2/3 + 1/3) / 2 = 1/2.
        let majority = majority_score(0, &stances, None).unwrap();
        assert!((majority - 0.5).abs() < 1e-12, "{majority}");
        // K = 1: bonus and penalty are the same claim, so every score is 0.
        let one = vec![vec![S], vec![S], vec![C]];
        assert_eq!(correlated_agreement(0, &one, &[0], None).unwrap(), 0.0);
        // No claims, or no peers: 0.
        assert_eq!(correlated_agreement(0, &[vec![], vec![]], &[], None).unwrap(), 0.0);
        assert_eq!(correlated_agreement(0, &[vec![S, C]], &[1, 0], None).unwrap(), 0.0);
        // Shapes are checked, never indexed past.
        assert!(correlated_agreement(3, &stances, &pi, None).unwrap_err().contains("source 4"));
        assert!(correlated_agreement(0, &stances, &[0, 0, 1], None).is_err());
        assert!(correlated_agreement(0, &[vec![S], vec![S, C]], &[0], None).is_err());
        assert!(majority_score(0, &stances, Some(&[1.0, -1.0, 1.0])).is_err());
        // The permutation is reproducible from its seed and covers every claim.
        let drawn = permutation(50, 7);
        assert_eq!(drawn, permutation(50, 7));
        let mut sorted = drawn.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..50).collect::<Vec<_>>());
        assert_ne!(drawn, permutation(50, 8));
    }

    /// A seeded stream of numbers in [0, 1).
    struct Rng(u64);

    impl Rng {
        fn unit(&mut self) -> f64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    /// How a simulated source reports a claim whose truth is `truth`.
    #[derive(Clone, Copy)]
    enum Kind {
        /// Speaks on a claim with probability `coverage`, and then says the truth.
        Truthful { coverage: f64 },
        /// Says the opposite of the truth on every claim.
        Opposite,
        /// Supports every claim.
        AlwaysSupports,
        /// Abstains on every claim.
        AlwaysAbstains,
        /// Refutes every claim (the coordinated bloc).
        AlwaysRefutes,
    }

    fn report(kind: Kind, truth: bool, rng: &mut Rng) -> Stance {
        let said = |value: bool| if value { S } else { C };
        match kind {
            Kind::Truthful { coverage } => {
                if rng.unit() < coverage {
                    said(truth)
                } else {
                    A
                }
            }
            Kind::Opposite => said(!truth),
            Kind::AlwaysSupports => S,
            Kind::AlwaysAbstains => A,
            Kind::AlwaysRefutes => C,
        }
    }

    /// Each source's mean CA and majority scores over `rounds` simulated questions of `k`
    /// claims, each claim true with probability 0.5.
    fn simulate(kinds: &[Kind], k: usize, rounds: usize) -> (Vec<f64>, Vec<f64>) {
        let mut rng = Rng(0x7575);
        let n = kinds.len();
        let (mut ca, mut majority) = (vec![0.0; n], vec![0.0; n]);
        for round in 0..rounds {
            for i in 0..n {
                let truths: Vec<bool> = (0..k).map(|_| rng.unit() < 0.5).collect();
                let stances: Vec<Vec<Stance>> = kinds
                    .iter()
                    .map(|&kind| truths.iter().map(|&t| report(kind, t, &mut rng)).collect())
                    .collect();
                let pi = permutation(k, (round * n + i) as u64);
                ca[i] += correlated_agreement(i, &stances, &pi, None).unwrap() / rounds as f64;
                majority[i] += majority_score(i, &stances, None).unwrap() / rounds as f64;
            }
        }
        (ca, majority)
    }

    #[test]
    fn truthful_sources_score_above_zero_and_uninformative_ones_near_it() {
        let kinds = [
            Kind::Truthful { coverage: 0.8 },
            Kind::Truthful { coverage: 0.8 },
            Kind::Truthful { coverage: 0.8 },
            Kind::Truthful { coverage: 0.8 },
            Kind::AlwaysSupports,
            Kind::AlwaysAbstains,
            Kind::Opposite,
        ];
        let (ca, _) = simulate(&kinds, 10, 200);
        // Truthful: about 0.09 here (three truthful peers, and three whose agreement carries
        // nothing), above τ.
        for truthful in &ca[..4] {
            assert!(*truthful > DEFAULT_TAU, "{ca:?}");
        }
        assert!(ca[4].abs() < 0.02, "always supports: {ca:?}");
        assert!(ca[5].abs() < 1e-12, "always abstains: {ca:?}");
        assert!(ca[6] < -0.2, "reports the opposite: {ca:?}");
        assert!(
            ca[..4].iter().all(|&t| t >= DEFAULT_TAU) && ca[4..].iter().all(|&u| u < DEFAULT_TAU)
        );
    }

    #[test]
    #[allow(clippy::print_stdout)] // the simulation's figures, read with --nocapture
    fn a_coordinated_bloc_gets_zero_from_correlated_agreement_but_tops_the_majority_rule() {
        // Ten sources: six truthful ones that speak on a third of the claims, and a bloc of
        // four that refutes every claim (the shape of the paper's Table 5).
        let mut kinds = vec![Kind::Truthful { coverage: 0.3 }; 6];
        kinds.extend([Kind::AlwaysRefutes; 4]);
        let (ca, majority) = simulate(&kinds, 12, 200);
        // The figures (`cargo test -p factdesk-methods bloc -- --nocapture` prints them).
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        println!(
            "Table-5-shaped simulation, 10 sources, 12 claims, 200 questions: correlated agreement \
             truthful {:.3}, bloc {:.3}; majority rule truthful {:.3}, bloc {:.3}",
            mean(&ca[..6]),
            mean(&ca[6..]),
            mean(&majority[..6]),
            mean(&majority[6..])
        );
        for bloc in &ca[6..] {
            assert!(bloc.abs() < 1e-12, "the bloc under CA: {ca:?}");
        }
        for truthful in &ca[..6] {
            assert!(*truthful > 0.0, "truthful under CA: {ca:?}");
        }
        let lowest_bloc = majority[6..].iter().copied().fold(f64::INFINITY, f64::min);
        let highest_truthful = majority[..6].iter().copied().fold(f64::NEG_INFINITY, f64::max);
        assert!(lowest_bloc > highest_truthful, "majority rule: {majority:?}");
    }
}
