package runner

import (
	"bytes"
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"dptext/experiments/rundir"
	"dptext/internal/fixtures"
)

func TestMechanismTimesSumsPhasesAndSpeed(t *testing.T) {
	times := []*rundir.CellTime{
		{PhaseSeconds: map[string]float64{"mechanisms": 1.5, "predict": 0.5}, WordsReleased: 600},
		{PhaseSeconds: map[string]float64{"mechanisms": 0.5, "utility": 1}, WordsReleased: 400},
		nil,
		{PhaseSeconds: map[string]float64{"private cache": 0.25}},
	}
	got := mechanismTimes([]string{"b", "a"}, []string{"a", "a", "a", "b"}, times)
	want := []string{
		"b: 1 cell(s), 0.2s: private cache 0.2s; no words computed",
		"a: 3 cell(s), 3.5s: mechanisms 2.0s, predict 0.5s, utility 1.0s; 1000 words released at 500 words/s (1 cell(s) without a recorded time)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestEveryCellRecordsItsTime(t *testing.T) {
	corpusPath, vecPath := fixtures.Corpus(t, 4, 2, 400)
	cfg := fixtureConfig(t, corpusPath, vecPath)
	dir := t.TempDir()
	var log bytes.Buffer
	if err := runFixture(t, cfg, dir, 2, context.Background(), &log); err != nil {
		t.Fatal(err)
	}
	man, err := rundir.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(man.CellTimes) != man.Cells {
		t.Fatalf("manifest times %d cells of %d", len(man.CellTimes), man.Cells)
	}
	for path, mt := range man.CellTimes {
		rec, err := rundir.ReadCell(filepath.Join(dir, "cells", rundir.CellFile(path)), path)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(rec.Time, mt) {
			t.Errorf("%s: cell file time %+v, manifest %+v", path, rec.Time, mt)
		}
		// The cache was empty: every cell computed its release, so words and time.
		if mt.WordsReleased == 0 || mt.PhaseSeconds["mechanisms"] <= 0 || mt.PhaseSeconds["predict"] <= 0 {
			t.Errorf("%s: time %+v lacks the release or the predictions", path, mt)
		}
	}
	for _, m := range cfg.Mechanisms {
		if !strings.Contains(log.String(), "  "+m.ID()+": ") || !strings.Contains(log.String(), "words/s") {
			t.Errorf("the run's log has no time line of mechanism %s:\n%s", m.ID(), log.String())
		}
	}
}
