package runner

import (
	"encoding/json"
	"testing"

	"dptext/internal/fixtures"
)

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	fixtures.WriteText(t, path, string(data))
}
