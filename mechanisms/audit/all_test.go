package audit

import (
	"bytes"
	"strings"
	"testing"

	"dptext/internal/fixtures"
	"dptext/mechanisms"
	"dptext/mechanisms/metricdp"
)

// TestSummaryMarksEachAudit: Audit (the entry point of `dptext audit` and a run's [audit]
// table) passes a correct EMD at its claim and fails EMD run at ε = 100 against a claim of 1;
// the summary writes one line each, "pass" and "FAIL", and Failed tells them apart.
func TestSummaryMarksEachAudit(t *testing.T) {
	store := fixtures.Grid(t, 10)
	var rows []SummaryRow
	for _, c := range []struct {
		name     string
		eps      float64
		claim    float64
		claimSet bool
	}{{"emd-right", 1, 0, false}, {"emd-loud", 100, 1, true}} {
		m, err := metricdp.NewEMD(store, c.eps, metricdp.EMDOptions{OOV: metricdp.OOVKeep, Workers: 1, Order: mechanisms.OrderBag})
		if err != nil {
			t.Fatal(err)
		}
		o := options(1000)
		o.Claim, o.ClaimSet = c.claim, c.claimSet
		rep, err := Audit(c.name, m, store, o)
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, SummaryRow{Mechanism: c.name, Epsilon: c.eps, Report: rep})
	}
	if rows[0].Failed() || !rows[1].Failed() {
		t.Fatalf("Failed: correct %v, broken %v; want false, true", rows[0].Failed(), rows[1].Failed())
	}
	var b bytes.Buffer
	WriteSummary(&b, rows)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[1], "emd-right") || !strings.Contains(lines[1], "pass (") ||
		!strings.HasPrefix(lines[2], "emd-loud") || !strings.Contains(lines[2], "FAIL (") || !strings.Contains(lines[2], "lower bound") {
		t.Errorf("summary:\n%s", b.String())
	}
}
