//! Fusing one document's probe answers into a verdict, as CIBER's "Verdict and Confidence"
//! step does. `agree` is P_AG, the shares of support / refute / neutral among the agreeing
//! probes' answers; `conflict` is P_CF, the contradicting probes' shares already read towards
//! the claim (their support and refute swapped). α ∈ [0, 1] weighs the first against the
//! second.
//!
//! - **WP** (weighted proportions): WP_Q = α·P_AG(Q) + (1−α)·P_CF(Q).
//! - **WIG** (weighted information gain): IG = ln 3 − entropy of a set's shares;
//!   WIG_Q = α·IG_AG·P_AG(Q) + (1−α)·IG_CF·P_CF(Q). Its confidence is divided by ln 3, so
//!   that every rule's confidence is in [0, 1].
//! - **WBU** (weighted belief update, Dempster–Shafer): m_AG = P_AG; m_CF(S) = α·P_CF(S),
//!   m_CF(R) = α·P_CF(R), m_CF(N) = P_CF(N) + (1−α)(P_CF(S) + P_CF(R)); neutral is the whole
//!   frame (S∩N = S, R∩N = R, S∩R = ∅), K = m_AG(R)·m_CF(S) + m_AG(S)·m_CF(R), and the
//!   combined masses are the agreeing products divided by 1 − K. **Total conflict** (K = 1:
//!   one set all support, the other all refute) leaves nothing to believe about S or R, so the
//!   combined mass is all neutral (m(N) = 1) rather than a division by zero.
//! - **Meta**: the mode of the three verdicts; when all three differ (one of them is then
//!   neutral), neutral. Its confidence is the mean of the three confidences.
//!
//! Each rule's verdict is the stance with the highest score. **Ties**: neutral wins a tie it
//! is part of, and a tie between support and refute is neutral too (evenly split evidence
//! decides nothing); the confidence is then the neutral score.

use factdesk_model::ciber::{FusionRule, Masses, RuleVerdict, Stance};

/// ln 3, the most information three stances can carry.
pub const LN_3: f64 = 1.098_612_288_668_109_8;

/// Weighted proportions.
pub fn wp(agree: &Masses, conflict: &Masses, alpha: f64) -> RuleVerdict {
    let scores = weighted(agree, conflict, alpha, 1.0, 1.0);
    let (stance, confidence) = decide(&scores);
    RuleVerdict { rule: FusionRule::Wp, stance, confidence, scores: Some(scores) }
}

/// Weighted information gain.
pub fn wig(agree: &Masses, conflict: &Masses, alpha: f64) -> RuleVerdict {
    let scores =
        weighted(agree, conflict, alpha, information_gain(agree), information_gain(conflict));
    let (stance, confidence) = decide(&scores);
    RuleVerdict {
        rule: FusionRule::Wig,
        stance,
        confidence: (confidence / LN_3).clamp(0.0, 1.0),
        scores: Some(scores),
    }
}

/// Weighted belief update (Dempster's rule of combination).
pub fn wbu(agree: &Masses, conflict: &Masses, alpha: f64) -> RuleVerdict {
    let ag = *agree;
    let cf = Masses {
        support: alpha * conflict.support,
        refute: alpha * conflict.refute,
        neutral: conflict.neutral + (1.0 - alpha) * (conflict.support + conflict.refute),
    };
    let k = ag.refute * cf.support + ag.support * cf.refute;
    let masses = if 1.0 - k <= f64::EPSILON {
        Masses::only(Stance::Neutral)
    } else {
        let norm = 1.0 - k;
        Masses {
            support: (ag.support * cf.support + ag.support * cf.neutral + ag.neutral * cf.support)
                / norm,
            refute: (ag.refute * cf.refute + ag.refute * cf.neutral + ag.neutral * cf.refute)
                / norm,
            neutral: ag.neutral * cf.neutral / norm,
        }
    };
    let (stance, confidence) = decide(&masses);
    RuleVerdict { rule: FusionRule::Wbu, stance, confidence, scores: Some(masses) }
}

/// The mode of three rules' verdicts (neutral when all differ), with the mean confidence.
pub fn meta(verdicts: [&RuleVerdict; 3]) -> RuleVerdict {
    let count = |stance: Stance| verdicts.iter().filter(|v| v.stance == stance).count();
    let stance =
        Stance::ALL.into_iter().find(|&stance| count(stance) >= 2).unwrap_or(Stance::Neutral);
    let confidence = verdicts.iter().map(|v| v.confidence).sum::<f64>() / 3.0;
    RuleVerdict { rule: FusionRule::Meta, stance, confidence, scores: None }
}

/// Every rule's verdict, in [`FusionRule::ALL`] order.
pub fn fuse(agree: &Masses, conflict: &Masses, alpha: f64) -> Vec<RuleVerdict> {
    let (wp, wig, wbu) =
        (wp(agree, conflict, alpha), wig(agree, conflict, alpha), wbu(agree, conflict, alpha));
    let meta = meta([&wp, &wig, &wbu]);
    vec![wp, wig, wbu, meta]
}

/// α·w_AG·P_AG + (1−α)·w_CF·P_CF, stance by stance.
fn weighted(
    agree: &Masses,
    conflict: &Masses,
    alpha: f64,
    w_agree: f64,
    w_conflict: f64,
) -> Masses {
    let mix = |a: f64, c: f64| alpha * w_agree * a + (1.0 - alpha) * w_conflict * c;
    Masses {
        support: mix(agree.support, conflict.support),
        refute: mix(agree.refute, conflict.refute),
        neutral: mix(agree.neutral, conflict.neutral),
    }
}

/// ln 3 minus the entropy of `shares` (0 ln 0 = 0); 0 for a set with no answers.
pub fn information_gain(shares: &Masses) -> f64 {
    if shares.total() <= 0.0 {
        return 0.0;
    }
    let entropy: f64 = Stance::ALL
        .iter()
        .map(|&stance| shares.get(stance))
        .filter(|&p| p > 0.0)
        .map(|p| -p * p.ln())
        .sum();
    (LN_3 - entropy).max(0.0)
}

/// The highest-scoring stance with the tie rule of the module documentation, and its score.
pub fn decide(scores: &Masses) -> (Stance, f64) {
    let best = scores.support.max(scores.refute).max(scores.neutral);
    let close = |value: f64| (best - value).abs() <= 1e-12;
    let stance = if close(scores.neutral) || (close(scores.support) && close(scores.refute)) {
        Stance::Neutral
    } else if close(scores.support) {
        Stance::Support
    } else {
        Stance::Refute
    };
    (stance, scores.get(stance))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn near(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    fn assert_masses(got: Masses, want: [f64; 3]) {
        assert!(
            near(got.support, want[0]) && near(got.refute, want[1]) && near(got.neutral, want[2]),
            "{got:?} != {want:?}"
        );
    }

    #[test]
    fn ln_3_is_ln_3() {
        assert!(near(LN_3, 3f64.ln()));
    }

    // Worked by hand: P_AG = (0.6, 0.2, 0.2), P_CF = (0.4, 0.4, 0.2), α = 0.5.
    const AG: Masses = Masses { support: 0.6, refute: 0.2, neutral: 0.2 };
    const CF: Masses = Masses { support: 0.4, refute: 0.4, neutral: 0.2 };

    #[test]
    fn weighted_proportions_by_hand() {
        let v = wp(&AG, &CF, 0.5);
        assert_masses(v.scores.unwrap(), [0.5, 0.3, 0.2]);
        assert_eq!(v.stance, Stance::Support);
        assert!(near(v.confidence, 0.5));
        // α = 1: the agreeing probes alone; α = 0: the contradicting ones alone (a tie of
        // support and refute, which decides nothing).
        assert_masses(wp(&AG, &CF, 1.0).scores.unwrap(), [0.6, 0.2, 0.2]);
        let only_cf = wp(&AG, &CF, 0.0);
        assert_masses(only_cf.scores.unwrap(), [0.4, 0.4, 0.2]);
        assert_eq!(only_cf.stance, Stance::Neutral);
        assert!(near(only_cf.confidence, 0.2));
    }

    #[test]
    fn weighted_information_gain_by_hand() {
        // E_AG = −(0.6 ln 0.6 + 2·0.2 ln 0.2) = 0.950271; IG_AG = 1.098612 − 0.950271 = 0.148341.
        // E_CF = −(2·0.4 ln 0.4 + 0.2 ln 0.2) = 1.054920; IG_CF = 0.043692.
        let ig_ag = 3f64.ln() + 0.6 * 0.6f64.ln() + 0.4 * 0.2f64.ln();
        let ig_cf = 3f64.ln() + 0.8 * 0.4f64.ln() + 0.2 * 0.2f64.ln();
        assert!(near(information_gain(&AG), ig_ag));
        assert!((ig_ag - 0.148_341_7).abs() < 1e-6);
        assert!((ig_cf - 0.043_692).abs() < 1e-5);
        let v = wig(&AG, &CF, 0.5);
        let s = 0.5 * ig_ag * 0.6 + 0.5 * ig_cf * 0.4;
        let r = 0.5 * ig_ag * 0.2 + 0.5 * ig_cf * 0.4;
        let n = 0.5 * ig_ag * 0.2 + 0.5 * ig_cf * 0.2;
        assert_masses(v.scores.unwrap(), [s, r, n]);
        assert_eq!(v.stance, Stance::Support);
        assert!(near(v.confidence, s / 3f64.ln()));
        // Uniform answers carry no information: every score 0, neutral with confidence 0.
        let uniform = Masses::new(1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0);
        let v = wig(&uniform, &uniform, 0.5);
        assert_eq!(v.stance, Stance::Neutral);
        assert!(v.confidence.abs() < 1e-9);
        // A set that is all one stance carries ln 3: confidence 1 at α = 1.
        let sure = wig(&Masses::only(Stance::Refute), &uniform, 1.0);
        assert_eq!(sure.stance, Stance::Refute);
        assert!(near(sure.confidence, 1.0));
    }

    #[test]
    fn weighted_belief_update_by_hand() {
        // α = 0.5: m_CF = (0.2, 0.2, 0.2 + 0.5·0.8 = 0.6).
        // K = 0.2·0.2 + 0.6·0.2 = 0.16; 1 − K = 0.84.
        // m(S) = (0.6·0.2 + 0.6·0.6 + 0.2·0.2)/0.84 = 0.52/0.84
        // m(R) = (0.2·0.2 + 0.2·0.6 + 0.2·0.2)/0.84 = 0.20/0.84
        // m(N) = 0.2·0.6/0.84 = 0.12/0.84
        let v = wbu(&AG, &CF, 0.5);
        assert_masses(v.scores.unwrap(), [0.52 / 0.84, 0.20 / 0.84, 0.12 / 0.84]);
        assert!(near(v.scores.unwrap().total(), 1.0));
        assert_eq!(v.stance, Stance::Support);
        // α = 0: the contradicting probes are all doubt (m_CF(N) = 1), so m = m_AG.
        assert_masses(wbu(&AG, &CF, 0.0).scores.unwrap(), [0.6, 0.2, 0.2]);
        // α = 1: m_CF = P_CF. K = 0.2·0.4 + 0.6·0.4 = 0.32; 1 − K = 0.68.
        // m(S) = (0.24 + 0.12 + 0.08)/0.68, m(R) = (0.08 + 0.04 + 0.08)/0.68, m(N) = 0.04/0.68.
        assert_masses(wbu(&AG, &CF, 1.0).scores.unwrap(), [0.44 / 0.68, 0.20 / 0.68, 0.04 / 0.68]);
    }

    #[test]
    fn total_conflict_is_all_neutral_not_a_division_by_zero() {
        let v = wbu(&Masses::only(Stance::Support), &Masses::only(Stance::Refute), 1.0);
        assert_masses(v.scores.unwrap(), [0.0, 0.0, 1.0]);
        assert_eq!(v.stance, Stance::Neutral);
        assert!(v.confidence.is_finite());
    }

    #[test]
    fn all_neutral_answers_give_neutral_under_every_rule() {
        let neutral = Masses::only(Stance::Neutral);
        for alpha in [0.0, 0.5, 1.0] {
            for verdict in fuse(&neutral, &neutral, alpha) {
                assert_eq!(verdict.stance, Stance::Neutral, "{:?} at α = {alpha}", verdict.rule);
            }
        }
        let [wp, wig, wbu, meta] = fuse(&neutral, &neutral, 0.5)[..] else { panic!() };
        assert!(near(wp.confidence, 1.0));
        // All neutral is certainty: IG = ln 3.
        assert!(near(wig.confidence, 1.0));
        assert!(near(wbu.confidence, 1.0));
        assert!(near(meta.confidence, 1.0));
    }

    #[test]
    fn meta_takes_the_mode_and_is_neutral_when_all_differ() {
        let v = |stance, confidence| RuleVerdict {
            rule: FusionRule::Wp,
            stance,
            confidence,
            scores: None,
        };
        let (s, r, n) = (v(Stance::Support, 0.9), v(Stance::Refute, 0.6), v(Stance::Neutral, 0.3));
        let all_differ = meta([&s, &r, &n]);
        assert_eq!(all_differ.stance, Stance::Neutral);
        assert!(near(all_differ.confidence, 0.6));
        let two_support = meta([&s, &r, &v(Stance::Support, 0.3)]);
        assert_eq!(two_support.stance, Stance::Support);
        assert!(near(two_support.confidence, 0.6));
    }

    #[test]
    fn ties_go_to_neutral() {
        assert_eq!(decide(&Masses::new(0.4, 0.4, 0.2)), (Stance::Neutral, 0.2));
        assert_eq!(decide(&Masses::new(0.4, 0.2, 0.4)), (Stance::Neutral, 0.4));
        assert_eq!(decide(&Masses::new(0.2, 0.5, 0.3)), (Stance::Refute, 0.5));
    }
}
