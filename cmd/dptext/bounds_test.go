package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// Training sizes whose memory exceeds the machine are refused before any data is read, with
// the estimate (they panicked in makeslice).
func TestTrainRefusesHugeSizes(t *testing.T) {
	for _, flag := range []string{"--hidden", "--batch"} {
		code, _, stderr := run(t, "train", "erae", "--config", "../../configs/erae.toml", "--out", filepath.Join(t.TempDir(), "m"), flag, "1000000000")
		if code != 2 || !strings.Contains(stderr, "needs about") || !strings.Contains(stderr, "more than this machine's") {
			t.Errorf("%s 1e9: exit %d, %q", flag, code, stderr)
		}
	}
}

// A synthetic vocabulary beyond the machine's memory is refused with its estimate (it died in
// makeslice).
func TestBenchDecodeRefusesAHugeSyntheticVocabulary(t *testing.T) {
	code, _, stderr := run(t, "bench", "decode", "--synthetic", "100000000000x300")
	if code != 2 || !strings.Contains(stderr, "--synthetic 100000000000x300: needs about 116 TiB of memory") {
		t.Errorf("exit %d, %q", code, stderr)
	}
}

// --claim NaN is refused, not taken for the default (the mechanism's own ε).
func TestAuditRefusesClaimNaN(t *testing.T) {
	code, _, stderr := run(t, "audit", "--mechanism", "random", "--claim", "NaN")
	if code != 2 || !strings.Contains(stderr, "--claim NaN: want a finite number ≥ 0") {
		t.Errorf("exit %d, %q", code, stderr)
	}
}
