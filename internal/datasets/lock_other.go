//go:build !unix

package datasets

import (
	"context"
	"io"
)

// lockDataset does nothing where flock(2) is missing: concurrent fetches stay correct (each
// stages in its own folder and renames it into place) but may download twice.
func lockDataset(context.Context, string, string, io.Writer) (func(), error) { return func() {}, nil }
