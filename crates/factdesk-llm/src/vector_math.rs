//! `exp` and `erf` for f32 written for loops the compiler vectorises: no branches, no calls,
//! no tables, only multiplies, adds, one division and bit operations. BERT spends a fifth of
//! its time on a small CPU in the scalar `erf` of its GELU and the `exp` of its attention
//! softmax; these take a few percent.
//!
//! Accuracy, far below what storing the weights in fp16 already changes:
//! - [`exp`]: within a few units in the last place on [-87, 88]; 0 below -88 (where the true
//!   value is under 2⁻¹²⁶), capped at e⁸⁸ above 88;
//! - [`erf`]: within 6 · 10⁻⁷ of the true value (the formula, Abramowitz and Stegun's
//!   *Handbook of Mathematical Functions* 7.1.26, is within 1.5 · 10⁻⁷; rounding in f32 near 0,
//!   where it subtracts two numbers close to 1, adds the rest). In GELU, `x · (1 + erf)` / 2,
//!   that is a relative error below 10⁻⁶.
//!
//! The loops are compiled for the widest vector instructions the processor has, chosen at run
//! time (pulp's dispatch: AVX-512 where the processor has it, AVX2 on most other x86-64
//! processors, SSE2 otherwise). The arithmetic is the same on every processor (no fused
//! multiply-add is ever formed), so results do not depend on which instructions run it.

/// `ln 2` in two parts: `LN2_HI` has its low 12 mantissa bits clear, so `k · LN2_HI` is exact
/// for the integers `k` that [`exp`] meets; `LN2_LO` is the rest.
const LN2_HI: f32 = f32::from_bits(0x3f31_7000); // 0.693115234375
const LN2_LO: f32 = 3.194_618_3e-5;
/// `1.5 · 2²³`: adding and subtracting it rounds an f32 of magnitude below 2²² to an integer.
const ROUNDER: f32 = 12_582_912.0;

/// `e^x`: `x = k · ln 2 + r` with `k` an integer and `|r| ≤ ln 2 / 2`, then `e^r` by its Taylor
/// series to the `r⁷` term (the next term is below 6 · 10⁻⁹) times `2^k` built from its bits.
#[inline(always)]
pub(crate) fn exp(x: f32) -> f32 {
    let x = x.clamp(-88.0, 88.0);
    let shifted = x * std::f32::consts::LOG2_E + ROUNDER;
    let k = shifted - ROUNDER;
    let r = (x - k * LN2_HI) - k * LN2_LO;
    let series = 1.0
        + r * (1.0
            + r * (1.0 / 2.0
                + r * (1.0 / 6.0
                    + r * (1.0 / 24.0 + r * (1.0 / 120.0 + r * (1.0 / 720.0 + r / 5040.0))))));
    // `shifted` is `ROUNDER + k` exactly, so its bits are those of ROUNDER plus k (integer
    // arithmetic, which vectorises where a float-to-integer conversion with its range checks
    // does not). k lies in [-127, 127]: a biased exponent of 0 makes the scale 0.
    let biased = shifted.to_bits().wrapping_sub(ROUNDER.to_bits()).wrapping_add(127);
    let scale = f32::from_bits(biased << 23);
    series * scale
}

/// `erf(x) = 1 − (a₁t + a₂t² + a₃t³ + a₄t⁴ + a₅t⁵) · e^(−x²)` with `t = 1 / (1 + p·x)` for
/// `x ≥ 0`, and `erf(−x) = −erf(x)`.
#[inline(always)]
pub(crate) fn erf(x: f32) -> f32 {
    // The handbook's constants as published, rounded to f32.
    const P: f32 = 0.327_591_1_f64 as f32;
    const A: [f64; 5] =
        [0.254_829_592, -0.284_496_736, 1.421_413_741, -1.453_152_027, 1.061_405_429];
    const A32: [f32; 5] = [A[0] as f32, A[1] as f32, A[2] as f32, A[3] as f32, A[4] as f32];
    let a = x.abs();
    let t = 1.0 / (1.0 + P * a);
    let series = t * (A32[0] + t * (A32[1] + t * (A32[2] + t * (A32[3] + t * A32[4]))));
    (1.0 - series * exp(-a * a)).copysign(x)
}

/// BERT's exact GELU, `x · (1 + erf(x / √2)) / 2`, in place.
pub(crate) fn gelu_erf(values: &mut [f32]) {
    pulp::Arch::new().dispatch(GeluErf(values))
}

struct GeluErf<'a>(&'a mut [f32]);

impl pulp::WithSimd for GeluErf<'_> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _: S) {
        for v in self.0 {
            *v = (erf(*v * std::f32::consts::FRAC_1_SQRT_2) + 1.0) * 0.5 * *v;
        }
    }
}

/// The softmax of `scores + mask`, in place, with the instructions `arch` chose (detected
/// once by the caller, not for every row).
pub(crate) fn masked_softmax(arch: pulp::Arch, scores: &mut [f32], mask: &[f32]) {
    arch.dispatch(MaskedSoftmax { scores, mask })
}

struct MaskedSoftmax<'a> {
    scores: &'a mut [f32],
    mask: &'a [f32],
}

impl pulp::WithSimd for MaskedSoftmax<'_> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _: S) {
        masked_softmax_inline(self.scores, self.mask);
    }
}

#[inline(always)]
fn masked_softmax_inline(scores: &mut [f32], mask: &[f32]) {
    for (score, mask) in scores.iter_mut().zip(mask) {
        *score += *mask;
    }
    let max = reduce(scores, f32::NEG_INFINITY, f32::max);
    for score in scores.iter_mut() {
        *score = exp(*score - max);
    }
    let scale = 1.0 / reduce(scores, 0.0, |a, b| a + b);
    for score in scores.iter_mut() {
        *score *= scale;
    }
}

/// `values` folded by `op` in eight running parts (which the compiler keeps in one vector
/// register instead of waiting on one running value), then the parts folded together.
#[inline(always)]
fn reduce(values: &[f32], start: f32, op: impl Fn(f32, f32) -> f32) -> f32 {
    let mut parts = [start; 8];
    let chunks = values.chunks_exact(8);
    let rest = chunks.remainder().iter().fold(start, |a, &b| op(a, b));
    for chunk in chunks {
        for (part, value) in parts.iter_mut().zip(chunk) {
            *part = op(*part, *value);
        }
    }
    op(parts.into_iter().fold(start, &op), rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every 1/1000 from -10 to 10, every 1/8 from -100 to 100, and the edges.
    fn points() -> Vec<f32> {
        let mut points: Vec<f32> = (-10_000..=10_000).map(|i| i as f32 / 1000.0).collect();
        points.extend((-800..=800).map(|i| i as f32 / 8.0));
        points.extend([-88.0, -87.9, -87.5, 87.9, 88.0, 1e-7, -1e-7, 1e-30, f32::MIN_POSITIVE]);
        points
    }

    #[test]
    fn exp_is_within_a_few_ulps_of_the_standard_library() {
        for x in points().into_iter().filter(|x| (-87.0..=88.0).contains(x)) {
            let (got, want) = (exp(x), f64::from(x).exp());
            let error = (f64::from(got) - want).abs() / want;
            assert!(error < 4.0 * f64::from(f32::EPSILON), "exp({x}) = {got}, want {want}");
        }
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(exp(-1000.0), 0.0);
        assert_eq!(exp(f32::NEG_INFINITY), 0.0);
        assert!(exp(1000.0).is_finite() && exp(1000.0) > 1e38);
        assert!(exp(f32::NAN).is_nan());
    }

    #[test]
    fn erf_is_within_its_bound_of_the_reference() {
        for x in points() {
            let (got, want) = (erf(x), candle_core::cpu::erf::erf_f64(f64::from(x)));
            assert!((f64::from(got) - want).abs() < 6e-7, "erf({x}) = {got}, want {want}");
        }
        assert_eq!(erf(0.0), 0.0);
        assert_eq!(erf(f32::INFINITY), 1.0);
        assert_eq!(erf(f32::NEG_INFINITY), -1.0);
        assert!(erf(f32::NAN).is_nan());
    }

    #[test]
    fn gelu_matches_the_scalar_formula() {
        let mut values = points();
        let want: Vec<f32> = values
            .iter()
            .map(|&v| {
                (candle_core::cpu::erf::erf_f32(v * std::f32::consts::FRAC_1_SQRT_2) + 1.0)
                    * 0.5
                    * v
            })
            .collect();
        gelu_erf(&mut values);
        for ((got, want), x) in values.iter().zip(&want).zip(points()) {
            assert!((got - want).abs() <= 3e-7 * (1.0 + x.abs()), "gelu({x}) = {got}, want {want}");
        }
    }

    #[test]
    fn masked_softmax_sums_to_one_and_ignores_masked_scores() {
        let mut scores = vec![1.0, 2.0, 3.0, 100.0, -5.0, 0.5, 0.25, 7.0, 2.5, 1.5];
        let mut mask = vec![0.0; scores.len()];
        mask[3] = f32::MIN;
        let unmasked: Vec<f64> = scores
            .iter()
            .zip(&mask)
            .filter(|(_, m)| **m == 0.0)
            .map(|(s, _)| f64::from(*s))
            .collect();
        let max = unmasked.iter().cloned().fold(f64::MIN, f64::max);
        let total: f64 = unmasked.iter().map(|s| (s - max).exp()).sum();
        masked_softmax(pulp::Arch::new(), &mut scores, &mask);
        assert_eq!(scores[3], 0.0);
        let mut want = unmasked.iter().map(|s| (s - max).exp() / total);
        for (index, got) in scores.iter().enumerate().filter(|(i, _)| *i != 3) {
            let want = want.next().unwrap();
            assert!((f64::from(*got) - want).abs() < 1e-6, "{index}: {got} vs {want}");
        }
        assert!((scores.iter().map(|s| f64::from(*s)).sum::<f64>() - 1.0).abs() < 1e-6);
    }
}
