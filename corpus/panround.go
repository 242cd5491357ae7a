package corpus

import (
	"math"
	"strconv"
)

// PANDecimals is the number of decimals PAN's attribution evaluators (pan18-cdaa-evaluator.py,
// pan19-cdaa-evaluator.py) round each problem's macro-F1 to before averaging over problems.
const PANDecimals = 3

// PANRound rounds v to PANDecimals decimals as Python's round(v, 3) does in PAN's evaluator:
// the exact binary value correctly rounded, ties to even (strconv's rounding), so that a mean
// of rounded per-problem scores equals the official "overall_score". NaN stays NaN.
func PANRound(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', PANDecimals, 64), 64)
	return r
}
