package mechanisms

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// tryApplyFunc is a TryApply given as a function.
type tryApplyFunc func(rng *rand.Rand, doc []string) ([]string, error)

func (f tryApplyFunc) TryApply(rng *rand.Rand, doc []string) ([]string, error) { return f(rng, doc) }

// TestApplyOrPanic: TryApply's output is returned as it is; its error is raised as the panic's
// value, never replaced by an output. Mutant: returning doc (or nil) on an error fails the
// recover check.
func TestApplyOrPanic(t *testing.T) {
	upper := tryApplyFunc(func(_ *rand.Rand, doc []string) ([]string, error) { return []string{doc[0] + "!"}, nil })
	if got := ApplyOrPanic(upper, nil, []string{"a"}); !slices.Equal(got, []string{"a!"}) {
		t.Errorf("got %v, want [a!]", got)
	}
	fail := errors.New("noise not representable")
	defer func() {
		if r := recover(); r != fail {
			t.Errorf("recovered %v, want the TryApply error", r)
		}
	}()
	ApplyOrPanic(tryApplyFunc(func(*rand.Rand, []string) ([]string, error) { return nil, fail }), nil, []string{"a"})
	t.Error("ApplyOrPanic returned after TryApply failed")
}
