package resources

import (
	"strings"
	"testing"
)

// An estimate within the budget passes; one above is refused naming the value, the estimate,
// how it was made and the budget.
func TestFits(t *testing.T) {
	if Memory() < 1<<20 {
		t.Fatalf("memory budget %v", Memory())
	}
	if err := Fits("n = 10", 1000, "100 bytes × n"); err != nil {
		t.Fatal(err)
	}
	err := Fits("n = 1e18", 1e18, "1 byte × n")
	if err == nil || !strings.HasPrefix(err.Error(), "n = 1e18: needs about 909495 TiB of memory (1 byte × n), more than this machine's ") {
		t.Fatalf("got %v", err)
	}
	for b, want := range map[float64]string{512: "512 B", 1536: "1.5 KiB", 3 << 30: "3 GiB"} {
		if got := Format(b); got != want {
			t.Errorf("Format(%v) = %q, want %q", b, got, want)
		}
	}
}
