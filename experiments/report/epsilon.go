package report

import (
	"cmp"
	"fmt"
	"math"
	"strconv"
)

// Epsilon is the privacy parameter ε of a cell: a number for a mechanism with ε, absent (the
// zero value, NoEpsilon) for one without, such as "none". It is one type from a config's
// [[mechanisms]] epsilons to results.csv; String is its one text form, used by results.csv,
// cell paths, random-stream names and cache keys alike.
type Epsilon struct {
	value float64
	set   bool
}

// NoEpsilon is the absent ε of a mechanism without one.
var NoEpsilon = Epsilon{}

// EpsilonOf is ε = v.
func EpsilonOf(v float64) Epsilon { return Epsilon{value: v, set: true} }

// Set reports whether ε is given (false for a mechanism without ε).
func (e Epsilon) Set() bool { return e.set }

// Value is ε as a number; NaN when absent, so that an absent ε used as a number shows.
func (e Epsilon) Value() float64 {
	if !e.set {
		return math.NaN()
	}
	return e.value
}

// String is ε in its shortest exact form ("10", "0.5"), "" when absent: the ε field of
// results.csv and the eps= element of cell paths.
func (e Epsilon) String() string {
	if !e.set {
		return ""
	}
	return strconv.FormatFloat(e.value, 'g', -1, 64)
}

// Compare orders an absent ε first, then larger ε first (the order of the tables' rows).
func (e Epsilon) Compare(f Epsilon) int {
	switch {
	case !e.set && !f.set:
		return 0
	case !e.set:
		return -1
	case !f.set:
		return 1
	}
	return cmp.Compare(f.value, e.value)
}

// ParseEpsilon reads the String form: "" is the absent ε, anything else must be a number.
func ParseEpsilon(s string) (Epsilon, error) {
	if s == "" {
		return NoEpsilon, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) {
		return NoEpsilon, fmt.Errorf("%q is not a number", s)
	}
	return EpsilonOf(v), nil
}

// UnmarshalTOML decodes ε from a config: an integer or a float (range checks are the
// mechanism's, see mechanisms.EpsilonRange).
func (e *Epsilon) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case int64:
		if x > 1<<53 || x < -(1<<53) {
			return fmt.Errorf("%d: beyond the integers a float64 holds exactly", x)
		}
		*e = EpsilonOf(float64(x))
	case float64:
		*e = EpsilonOf(x)
	default:
		return fmt.Errorf("%#v (a %T): want a number", v, v)
	}
	return nil
}
