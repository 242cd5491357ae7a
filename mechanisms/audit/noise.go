package audit

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distuv"
)

// The noise-step tests (white box). A mechanism implementing mechanisms.NoiseStep releases a
// function of z = φ(x) + noise alone, so its claim ε·d(x, x′), d(x, x′) = ‖W(φ(x) − φ(x′))‖,
// holds for every release when the whitened noise w = W(z − φ(x)) has density ∝ exp(−ε′‖w‖)
// with ε′ ≤ ε: p(z|x)/p(z|x′) = exp(ε′(‖W(z − φ(x′))‖ − ‖W(z − φ(x))‖)) ≤ exp(ε′·d(x, x′)).
// That density is a radius ‖w‖ ~ Gamma(n, 1/ε′) times an independent direction uniform on the
// sphere. For each audited input word the audit draws K noisy vectors with the mechanism's own
// code and tests, each at the audit's Bonferroni level a:
//
//   - radius scale: S = Σ‖wᵢ‖ is Gamma(nK, 1/ε′), so ε_L = Q_{Gamma(nK,1)}(a)/S is a lower
//     confidence bound on ε′; the claim fails when ε_L > ε (noise too small for the claim);
//   - radius shape: Kolmogorov–Smirnov of ε̂·‖wᵢ‖ (ε̂ = nK/S) against Gamma(n, 1); estimating the
//     scale from the same data only makes the test conservative (Lilliefors 1967);
//   - radius shape at the claimed scale: T = Σ ln(ε·‖wᵢ‖) (ε the claim), the sufficient statistic
//     of the Gamma shape at a known scale: for radii Gamma(n, 1/ε′) it has mean K·(ψ(n) + ln(ε/ε′))
//     and variance K·ψ′(n), so it is at least K·ψ(n) in distribution whenever ε′ ≤ ε; the test
//     fails when z = (T − K·ψ(n))/√(K·ψ′(n)) < Φ⁻¹(a) (one-sided: noise larger than the claim
//     needs never fails it). A shape n − 1 at the claimed scale lowers T's mean by
//     K/(n − 1), z ≈ −√(nK)/(n − 1): the Kolmogorov–Smirnov test cannot see it (after rescaling
//     it changes the variance by 1/(n − 1) only), and the scale test sees it as ε′ = ε·n/(n − 1);
//   - direction: for unit vectors v (the whitened difference to each word it is compared with —
//     the direction the pair's privacy depends on — and one random direction), (u·v + 1)/2 of the
//     uniform direction u is Beta((n−1)/2, (n−1)/2); Kolmogorov–Smirnov against it;
//   - metric (exact, no randomness): the claimed distance of each pair is at least the whitened
//     distance ‖W(φ(x) − φ(x′))‖ the noise protects (a claim on a smaller metric is unproven).
//
// The radius tests use K_n = max(K, 100·n) draws (noise draws are cheap: nothing is decoded),
// so that the shape-(n − 1) mutant reaches z ≈ −10·n/(n − 1) on every input whatever K is,
// beyond the one-sided critical value of any level a ≥ 10⁻¹⁵ (z < −8) by two standard
// deviations or more. A mechanism with the right noise fails each test with probability at most a; noise too small
// by a factor 1 + δ fails the scale test with probability ½ already at δ ≈ z_a/√(nK_n) (0.35 % at
// n = 100, K_n = 10,000 and the default audit's level), and a shape or direction change fails
// once it moves a distribution function by more than the Kolmogorov critical value
// ≈ √(ln(2/a)/(2K_n)) (0.02 at K_n = 10,000).

// noiseWords are the input words whose noise is tested: the first word of every tested pair, in
// order, each with the words it is compared with.
func noiseWords(pairs []wordPair) (words []string, partners map[string][]string) {
	partners = map[string][]string{}
	for _, p := range pairs {
		if _, ok := partners[p.x]; !ok {
			words = append(words, p.x)
		}
		partners[p.x] = append(partners[p.x], p.y)
	}
	return words, partners
}

// noiseTests is the number of goodness-of-fit tests noiseFindings runs for a word with the
// given number of partners in dimension n: scale, the two shape tests and one direction per partner plus a
// random one (directions need n ≥ 2).
func noiseTests(partners, n int) int {
	if n < 2 {
		return 3
	}
	return 4 + partners
}

// noiseFindings tests the noise step of the target for word x (see above) at level a per test.
func noiseFindings(t *Target, rng *rand.Rand, x string, partners []string, claim float64, k int, a float64) ([]Finding, error) {
	ns := t.Noise
	phi, ok := ns.WordVector(x)
	if !ok {
		return nil, fmt.Errorf("audit: noise step of %q: not in the mechanism's vocabulary", x)
	}
	n := len(phi)
	k = max(k, noiseDrawsPerDimension*n)
	z, err := ns.NoisyVectors(rng, x, k)
	if err != nil {
		return nil, fmt.Errorf("audit: noise step of %q: %w", x, err)
	}
	if len(z) != k*n {
		return nil, fmt.Errorf("audit: noise step of %q: %d values for %d draws of dimension %d", x, len(z), k, n)
	}
	radii := make([]float64, k)
	dirs := make([]float64, k*n)
	d := make([]float64, n)
	for i := range k {
		for j := range n {
			d[j] = z[i*n+j] - float64(phi[j])
		}
		w := dirs[i*n : (i+1)*n]
		ns.Whiten(w, d)
		r := norm(w)
		radii[i] = r
		if r > 0 {
			for j := range w {
				w[j] /= r
			}
		}
	}
	base := Finding{Level: "noise", X: []string{x}, Units: 1, PValue: math.NaN(), Bound: math.NaN(), Ceiling: math.Inf(1)}
	var out []Finding

	// Radius scale.
	sum := 0.0
	for _, r := range radii {
		sum += r
	}
	total := distuv.Gamma{Alpha: float64(n * k), Beta: 1}
	lo := total.Quantile(a)
	f := base
	f.Kind, f.Method, f.Claim = "radius scale", "gamma sum", claim
	f.Bound = lo / sum // +Inf when every radius is 0 (no noise)
	f.Output = fmt.Sprintf("mean radius %.4g, the claim needs %.4g; detects ε ≥ %.4g·claim half the time", sum/float64(k), float64(n)/claim, total.Quantile(0.5)/lo)
	out = append(out, f)

	// Radius shape.
	epsHat := float64(n*k) / sum
	scaled := make([]float64, k)
	for i, r := range radii {
		scaled[i] = epsHat * r
	}
	out = append(out, ksFinding(base, "radius shape", scaled, distuv.Gamma{Alpha: float64(n), Beta: 1}.CDF, a, claim))
	out = append(out, logRadiusFinding(base, radii, n, claim, a))
	if n < 2 || sum == 0 || math.IsInf(sum, 0) || math.IsNaN(sum) {
		return append(out, metricFinding(t, base, x, partners, claim)), nil
	}

	// Directions.
	beta := distuv.Beta{Alpha: float64(n-1) / 2, Beta: float64(n-1) / 2}
	var vs [][]float64
	var names []string
	for _, y := range partners {
		py, ok := ns.WordVector(y)
		if !ok {
			continue
		}
		for j := range n {
			d[j] = float64(phi[j]) - float64(py[j])
		}
		v := make([]float64, n)
		ns.Whiten(v, d)
		vs, names = append(vs, v), append(names, "towards "+y)
	}
	v := make([]float64, n)
	for j := range v {
		v[j] = rng.NormFloat64()
	}
	vs, names = append(vs, v), append(names, "random")
	for i, v := range vs {
		if nv := norm(v); nv > 0 {
			for j := range v {
				v[j] /= nv
			}
		}
		proj := make([]float64, k)
		for s := range k {
			dot := 0.0
			for j, u := range dirs[s*n : (s+1)*n] {
				dot += u * v[j]
			}
			proj[s] = (dot + 1) / 2
		}
		out = append(out, ksFinding(base, "direction "+names[i], proj, beta.CDF, a, claim))
	}
	return append(out, metricFinding(t, base, x, partners, claim)), nil
}

// noiseDrawsPerDimension sets the least number of noise draws per input word, per dimension.
const noiseDrawsPerDimension = 100

// logRadiusFinding is the radius shape test at the claimed scale (see above): one-sided, it
// fails when Σ ln(claim·rᵢ) is below K·ψ(n) by more than the level-a quantile of its normal
// approximation (K ≥ 100·n draws of a variable of skewness about −1/√n).
func logRadiusFinding(base Finding, radii []float64, n int, claim, a float64) Finding {
	k := float64(len(radii))
	sum := 0.0
	for _, r := range radii {
		sum += math.Log(claim * r) // −Inf for a zero radius: rejected
	}
	mean, sd := k*mathext.Digamma(float64(n)), math.Sqrt(k*trigamma(float64(n)))
	z := (sum - mean) / sd
	f := base
	f.Kind, f.Method, f.Claim = "radius shape at the claimed scale", "log-radius sum", claim
	f.PValue = distuv.UnitNormal.CDF(z)
	if math.IsNaN(z) {
		f.PValue = 0
	}
	f.Rejected = f.PValue < a
	f.Output = fmt.Sprintf("z = %.3g over %d draws (Σ ln(ε·r) against K·ψ(n)), critical %.3g at level %.3g", z, len(radii), distuv.UnitNormal.Quantile(a), a)
	return f
}

// trigamma is ψ′(x) for x > 0: the recurrence ψ′(x) = ψ′(x+1) + 1/x² up to x ≥ 10, then the
// asymptotic series (error below 10⁻¹²).
func trigamma(x float64) float64 {
	s := 0.0
	for ; x < 10; x++ {
		s += 1 / (x * x)
	}
	x2 := x * x
	return s + 1/x + 1/(2*x2) + 1/(6*x2*x) - 1/(30*x2*x2*x) + 1/(42*x2*x2*x2*x) - 1/(30*x2*x2*x2*x2*x)
}

// ksFinding is the Kolmogorov–Smirnov test of the sample against cdf at level a.
func ksFinding(base Finding, kind string, sample []float64, cdf func(float64) float64, a, claim float64) Finding {
	dstat := ksStatistic(sample, cdf)
	k := len(sample)
	f := base
	f.Kind, f.Method, f.Claim = kind, "kolmogorov-smirnov", claim
	f.PValue = kolmogorovPValue(dstat, k)
	f.Rejected = f.PValue < a
	f.Output = fmt.Sprintf("D = %.4g, critical %.4g at level %.3g", dstat, ksCritical(k, a), a)
	return f
}

// metricFinding checks (exactly) that the claimed distance of x to each partner is at least the
// whitened distance the noise protects; Bound is the largest ratio of the two (≤ 1 passes).
func metricFinding(t *Target, base Finding, x string, partners []string, claim float64) Finding {
	ns := t.Noise
	phi, _ := ns.WordVector(x)
	n := len(phi)
	d, w := make([]float64, n), make([]float64, n)
	f := base
	f.Kind, f.Method, f.Exact, f.Claim, f.Bound = "metric", "exact", true, 1, 0
	for _, y := range partners {
		py, ok := ns.WordVector(y)
		if !ok {
			continue
		}
		for j := range n {
			d[j] = float64(phi[j]) - float64(py[j])
		}
		ns.Whiten(w, d)
		noise, claimed := norm(w), t.WordUnits(x, y)
		ratio := math.Inf(1)
		switch {
		case noise == 0:
			ratio = 0
		case claimed > 0:
			ratio = noise / claimed
		}
		if ratio > f.Bound {
			f.Bound = ratio
			f.Output = fmt.Sprintf("vs %s: claimed distance %.6g, the noise's %.6g", y, claimed, noise)
		}
	}
	f.Rejected = f.Bound > 1+1e-9
	return f
}

func norm(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}

// ksStatistic is sup |F_n − F| of the sample against cdf.
func ksStatistic(sample []float64, cdf func(float64) float64) float64 {
	s := append([]float64(nil), sample...)
	sort.Float64s(s)
	n := float64(len(s))
	d := 0.0
	for i, x := range s {
		c := cdf(x)
		d = math.Max(d, math.Max(float64(i+1)/n-c, c-float64(i)/n))
	}
	return d
}

// kolmogorovPValue is P(D_n ≥ d) under the null, by the asymptotic Kolmogorov distribution
// with Stephens' (1970) finite-sample correction λ = d(√n + 0.12 + 0.11/√n).
func kolmogorovPValue(d float64, n int) float64 {
	sn := math.Sqrt(float64(n))
	l := d * (sn + 0.12 + 0.11/sn)
	if l < 0.2 {
		return 1
	}
	p := 0.0
	for j := 1; j <= 100; j++ {
		term := 2 * math.Exp(-2*float64(j*j)*l*l)
		if j%2 == 0 {
			term = -term
		}
		p += term
		if math.Abs(term) < 1e-16 {
			break
		}
	}
	return math.Min(1, math.Max(0, p))
}

// ksCritical is the smallest D that kolmogorovPValue rejects at level a for n draws (bisection).
func ksCritical(n int, a float64) float64 {
	lo, hi := 0.0, 1.0
	for range 60 {
		mid := (lo + hi) / 2
		if kolmogorovPValue(mid, n) < a {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}
