// Package verdictrun orchestrates a run's verdicts: the ε search that adds cells until every
// mechanism's curve brackets each level of a verdict axis, the tables of every axis (attack,
// claimed and audited ε per unit, empirical ε), their families and the replication on halves,
// written as verdict.md and verdict.csv. The statistics are package verdict's; the cells are
// the runner's, reached through Host.
package verdictrun

import (
	"fmt"
	"slices"

	"dptext/experiments/protocol"
	"dptext/experiments/report"
	"dptext/experiments/runconfig"
	"dptext/experiments/rundir"
	"dptext/mechanisms"
)

// Cell is one (set, mechanism, ε, repeat) combination of a run: Set indexes the run's sets,
// Mech the config's mechanisms.
type Cell struct {
	Set, Mech int
	Eps       report.Epsilon
	Rep       int
}

// ItemScore is one scorer's score of one item in one cell.
type ItemScore struct {
	Cell Cell
	Pred rundir.Prediction
}

// Host is what the orchestration needs from the run that owns the cells.
type Host interface {
	// Mechanism builds (or returns the built) mechanism of a cell; an error says why it cannot
	// run at that ε on that data.
	Mechanism(c Cell) (mechanisms.Mechanism, error)
	// CheckEpsilon returns the error Mechanism would return for c, without building the
	// mechanism where its options can tell more cheaply.
	CheckEpsilon(c Cell) error
	// Items reads every item score of the finished cells back, in predictions.csv order.
	Items(cells []Cell) ([]ItemScore, error)
	// Compute runs the cells that are not finished yet (cached, resumable, as any cell).
	Compute(cells []Cell) error
	// Logf reports progress.
	Logf(format string, args ...any)
}

// Run is the verdict orchestration of one run: its config, sets and host, and what the ε
// search found on each set and axis.
type Run struct {
	cfg  *runconfig.Config
	sets []*protocol.SetData
	host Host
	// search holds, per set and per verdict axis the ε search runs on (the attack's, and
	// [distinguish]'s empirical ε), what the search found (epsearch.go).
	search []map[searchAxis]*axisSearch
	// replicates is the bootstrap's replicate count the verdicts use (0: the config's).
	replicates int
}

// replicateCount is the bootstrap's replicate count of the verdicts.
func (o *Run) replicateCount() int {
	if o.replicates > 0 {
		return o.replicates
	}
	return o.cfg.Verdict.Replicates
}

// New returns the verdict orchestration of a run of cfg on sets, reaching the cells through
// host.
func New(cfg *runconfig.Config, sets []*protocol.SetData, host Host) *Run {
	return &Run{cfg: cfg, sets: sets, host: host}
}

// cellPath names a cell as its file does ("set=…/mech=…/eps=…/rep=…").
func (o *Run) cellPath(c Cell) string {
	return fmt.Sprintf("set=%s/mech=%s/eps=%s/rep=%d", o.sets[c.Set].Name, o.cfg.Mechanisms[c.Mech].ID(), c.Eps, c.Rep)
}

// rankScorer is the scorer column of an attacker's per-item reciprocal ranks (the runner's
// cells write them under this name).
func rankScorer(id string) string { return id + "/" + report.MetricReciprocalRank }

// orderCells sorts cells as the grid lists them — set, mechanism, ε from the largest, repeat —
// so that added ε take their place in results.csv.
func orderCells(cells []Cell) []Cell {
	slices.SortStableFunc(cells, func(a, b Cell) int {
		switch {
		case a.Set != b.Set:
			return a.Set - b.Set
		case a.Mech != b.Mech:
			return a.Mech - b.Mech
		case a.Eps != b.Eps:
			return a.Eps.Compare(b.Eps)
		}
		return a.Rep - b.Rep
	})
	return cells
}
