package rundir

import (
	"errors"
	"fmt"
	"maps"
	"slices"
)

// ErrRefused marks errors of a run that refused to start (a locked folder, or finished cells
// of another config, version or input): the folder was left as it was.
var ErrRefused = errors.New("refused")

// Refusef formats a refusal (see ErrRefused).
func Refusef(format string, args ...any) error {
	return &refusal{msg: fmt.Sprintf(format, args...)}
}

type refusal struct{ msg string }

func (r *refusal) Error() string        { return r.msg }
func (r *refusal) Is(target error) bool { return target == ErrRefused }

// ChangedComponents lists the components whose version differs between two runs, as
// "name (old → new)".
func ChangedComponents(old, now map[string]string) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(now)) {
		if v, ok := old[k]; ok && v != now[k] {
			out = append(out, fmt.Sprintf("%s (%s → %s)", k, v, now[k]))
		}
	}
	return out
}
