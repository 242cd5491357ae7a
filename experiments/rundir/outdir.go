package rundir

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// FixedOutputs are the output files of a complete run whose names are always dptext's in a
// run folder: a new run removes them before it starts (so that no table of an earlier run
// stays beside an unfinished one). Its other outputs — plots and tf/*.tsv, whose names depend
// on the config — are dptext's only when the folder's manifest lists them (Manifest.Outputs).
var FixedOutputs = []string{"results.csv", "summary.csv", "table.md", "table.csv", "table.tex",
	"predictions.csv", "verdict.md", "verdict.csv"}

// isTempName reports whether name is a temporary file of the atomic writer (".NAME.tmp-*"),
// which a killed process leaves behind.
func isTempName(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp-")
}

// CheckOutDir is checkOutDir for commands that prepare a run folder (dptext slurm).

// CheckOutDir refuses to use dir as a run folder unless it is missing, empty, or recognisably
// a dptext run folder: it holds a dptext manifest (manifest.json or shards/*.json), or only
// what a run killed before its first manifest leaves (killedRunEntry). Anything else is a
// folder of the user's, whose files a run must not mix with its own or remove: the refusal
// lists what is there.
func CheckOutDir(dir string) error {
	info, err := os.Stat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("--out %s: %w", dir, err)
	}
	if !info.IsDir() {
		return Refusef("--out %s is a file, not a folder: choose a new or empty folder", dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("--out %s: %w", dir, err)
	}
	if len(entries) == 0 || hasDptextManifest(dir) {
		return nil
	}
	var foreign []string
	for _, e := range entries {
		if !killedRunEntry(dir, e) {
			name := e.Name()
			if e.IsDir() {
				name += "/"
			}
			foreign = append(foreign, name)
		}
	}
	if len(foreign) == 0 {
		return nil
	}
	sort.Strings(foreign)
	more := ""
	if len(foreign) > 8 {
		more = fmt.Sprintf(" and %d more", len(foreign)-8)
		foreign = foreign[:8]
	}
	return Refusef("--out %s is not empty and not a dptext run folder (%s): it holds %s%s. dptext writes only into a new or empty folder or a run folder of its own, and never removes files it did not write: choose another --out",
		dir, manifestProblem(dir), strings.Join(foreign, ", "), more)
}

// manifestProblem says why dir's manifest.json does not make it a dptext run folder: there is
// none, it is not a regular file, it is not a manifest (unreadable, not JSON, a JSON error), or
// it is another tool's (its "tool" is not "dptext").
func manifestProblem(dir string) string {
	path := filepath.Join(dir, "manifest.json")
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "no manifest.json"
	case err != nil:
		return fmt.Sprintf("its manifest.json cannot be read: %v", err)
	case !info.Mode().IsRegular():
		return "its manifest.json is not a regular file"
	}
	m, err := ReadManifestAt(path)
	if err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			return fmt.Sprintf("its manifest.json is damaged or not a manifest: not valid JSON at byte %d", syntax.Offset)
		}
		return fmt.Sprintf("its manifest.json is damaged or not a manifest: %v", errors.Unwrap(err))
	}
	if m.Tool == "" {
		return `its manifest.json is not dptext's: it has no "tool": "dptext"`
	}
	return fmt.Sprintf(`its manifest.json is not dptext's: "tool" is %q`, m.Tool)
}

// killedRunEntry reports whether e, in a folder without a manifest, is what a dptext run
// killed before its first manifest leaves: its lock, temporary files, cells/ and shards/
// holding only dptext's files, or the scripts folder of dptext slurm. The outputs of a
// complete run (results.csv, tf/, …) come only after a manifest, so without one they are not
// dptext's.
func killedRunEntry(dir string, e os.DirEntry) bool {
	name := e.Name()
	switch {
	case isTempName(name) || (name == LockName && !e.IsDir()):
		return true
	case !e.IsDir():
		return false
	case name == "slurm":
		_, err := os.Stat(filepath.Join(dir, "slurm", "shards.sbatch"))
		return err == nil
	case name == "cells" || name == "shards":
		files, err := os.ReadDir(filepath.Join(dir, name))
		if err != nil {
			return false
		}
		for _, f := range files {
			n := f.Name()
			ours := isTempName(n) || (name == "cells" && (strings.HasSuffix(n, ".cell") || n == "fingerprint.json")) ||
				(name == "shards" && (strings.HasSuffix(n, ".lock") || strings.HasSuffix(n, ".json")))
			if f.IsDir() || !ours {
				return false
			}
		}
		return true
	}
	return false
}

// hasDptextManifest reports whether dir holds a manifest written by dptext, of a whole run or
// of a shard.
func hasDptextManifest(dir string) bool {
	files, _ := filepath.Glob(filepath.Join(dir, "shards", "*.json"))
	for _, f := range append([]string{filepath.Join(dir, "manifest.json")}, files...) {
		if m, err := ReadManifestAt(f); err == nil && m.Tool == "dptext" {
			return true
		}
	}
	return false
}

// RemoveStaleTemps removes the temporary files of the atomic writer that a killed run left in
// the run folder, cells/ and tf/. Only a whole run or a merge calls it: it holds the folder's
// lock and no shard runs there, so no live writer owns them.
func RemoveStaleTemps(dir string) {
	for _, d := range []string{dir, filepath.Join(dir, "cells"), filepath.Join(dir, "tf"), filepath.Join(dir, "shards")} {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if !e.IsDir() && isTempName(e.Name()) {
				os.Remove(filepath.Join(d, e.Name()))
			}
		}
	}
}

// RemoveShardTemps removes the temporary files of shard s's own manifest left by a kill.
func RemoveShardTemps(dir string, s Shard) {
	prefix := "." + s.name() + ".json.tmp-"
	entries, _ := os.ReadDir(filepath.Join(dir, "shards"))
	for _, e := range entries {
		if !e.IsDir() && strings.HasPrefix(e.Name(), prefix) {
			os.Remove(filepath.Join(dir, "shards", e.Name()))
		}
	}
}

// RemoveRunOutputs removes the outputs of an earlier run in dir, so that nothing of it stays
// beside an unfinished one: the FixedOutputs, and the plots and tf/*.tsv files the folder's
// manifest lists as its outputs. Every other file stays, whatever its name — a picture of
// the user's named like a plot, a .tsv of theirs in tf/ — and so does a listed name that is
// no longer a regular file (a folder or link put there since). A listed path outside the
// folder's top level and tf/ is ignored: a manifest is data, not a list of what to delete.
func RemoveRunOutputs(dir string) error {
	remove := slices.Clone(FixedOutputs)
	if m, err := ReadManifest(dir); err == nil {
		for _, p := range m.Outputs {
			if listedOutput(p) {
				remove = append(remove, filepath.FromSlash(p))
			}
		}
	}
	for _, p := range remove {
		path := filepath.Join(dir, p)
		if info, err := os.Lstat(path); err != nil || !info.Mode().IsRegular() {
			continue
		}
		if err := os.Remove(path); err != nil {
			return err
		}
	}
	removeIfEmpty(filepath.Join(dir, "tf"))
	return nil
}

// listedOutput reports whether p, a path of a manifest's outputs, names a file a run writes
// under a config-dependent name: a .png or .pdf at the folder's top level, or a .tsv in tf/.
func listedOutput(p string) bool {
	if !filepath.IsLocal(filepath.FromSlash(p)) || strings.Contains(p, "\\") {
		return false
	}
	dir, name := path.Split(p)
	switch dir {
	case "":
		return strings.HasSuffix(name, ".png") || strings.HasSuffix(name, ".pdf")
	case "tf/":
		return strings.HasSuffix(name, ".tsv") && name != ".tsv"
	}
	return false
}

// removeIfEmpty removes the folder dir when it holds nothing.
func removeIfEmpty(dir string) {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) == 0 {
		os.Remove(dir)
	}
}

// RemoveCellFiles removes the files dptext writes in cells/ (cell files, the fingerprint, cell
// files of older versions, temporary files), for --force; other files stay.
func RemoveCellFiles(cells string) error {
	entries, err := os.ReadDir(cells)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !(strings.HasSuffix(n, ".cell") || strings.HasSuffix(n, ".csv") || n == "fingerprint.json" || isTempName(n)) {
			continue
		}
		if err := os.Remove(filepath.Join(cells, n)); err != nil {
			return err
		}
	}
	return nil
}
