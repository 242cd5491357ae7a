package rundir

import (
	"strings"
	"testing"
)

// TestDiffNamesEveryChangedBehaviour: a refusal names each component whose behaviour
// fingerprint changed, appeared (a component the old code did not fingerprint, such as the
// distinguishing game's) or disappeared; equal fingerprints name nothing. Mutant (run by hand):
// comparing only the keys both sides hold leaves the new component unnamed ("changed: .").
func TestDiffNamesEveryChangedBehaviour(t *testing.T) {
	old := &Fingerprint{ConfigHash: "c", Behaviour: map[string]string{"mechanism/emd": "a", "audit/emd": "x", "scorer/nb": "s"}}
	now := &Fingerprint{ConfigHash: "c", Behaviour: map[string]string{"mechanism/emd": "b", "distinguish/emd": "g", "scorer/nb": "s"}}
	diff := strings.Join(now.Diff(old), "; ")
	for _, want := range []string{"behaviour of mechanism/emd (a → b", "behaviour of distinguish/emd (fingerprinted now", "behaviour of audit/emd (fingerprinted by the code that made the cells, not now)"} {
		if !strings.Contains(diff, want) {
			t.Errorf("diff %q does not say %q", diff, want)
		}
	}
	if strings.Contains(diff, "scorer/nb") {
		t.Errorf("diff %q names an unchanged component", diff)
	}
	if d := now.Diff(now); len(d) != 0 {
		t.Errorf("a fingerprint differs from itself: %q", d)
	}
}
