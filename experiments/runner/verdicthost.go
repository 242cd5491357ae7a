package runner

import (
	"context"

	"dptext/experiments/rundir"
	"dptext/experiments/verdictrun"
	"dptext/mechanisms"
)

// itemScore is one scorer's score of one item in one cell.
type itemScore struct {
	cell cell
	pred rundir.Prediction
}

// verdictHost gives the verdict orchestration (package verdictrun: the ε search and the
// verdicts) the run's cells: it builds their mechanisms, reads their item scores back and
// computes the cells the search adds, as any cell of the run.
type verdictHost struct {
	r    *runner
	ctx  context.Context
	opts RunOptions
	live *rundir.LiveManifest
}

func (h verdictHost) Mechanism(c verdictrun.Cell) (mechanisms.Mechanism, error) {
	return h.r.mechanism(fromVerdictCell(c))
}

func (h verdictHost) CheckEpsilon(c verdictrun.Cell) error {
	return h.r.checkEpsilon(fromVerdictCell(c))
}

func (h verdictHost) Items(cells []verdictrun.Cell) ([]verdictrun.ItemScore, error) {
	out, err := h.r.collect(fromVerdictCells(cells))
	if err != nil {
		return nil, err
	}
	return verdictItems(out.items), nil
}

func (h verdictHost) Compute(cells []verdictrun.Cell) error {
	return h.r.computeCells(h.ctx, fromVerdictCells(cells), h.opts, h.live)
}

func (h verdictHost) Logf(format string, args ...any) { h.r.logf(format, args...) }

// verdictItems converts item scores to the orchestration's.
func verdictItems(items []itemScore) []verdictrun.ItemScore {
	out := make([]verdictrun.ItemScore, len(items))
	for i, it := range items {
		out[i] = verdictrun.ItemScore{Cell: verdictCell(it.cell), Pred: it.pred}
	}
	return out
}

func verdictCell(c cell) verdictrun.Cell {
	return verdictrun.Cell{Set: c.set, Mech: c.mech, Eps: c.eps, Rep: c.rep}
}

func fromVerdictCell(c verdictrun.Cell) cell { return cell{c.Set, c.Mech, c.Eps, c.Rep} }

func verdictCells(cells []cell) []verdictrun.Cell {
	out := make([]verdictrun.Cell, len(cells))
	for i, c := range cells {
		out[i] = verdictCell(c)
	}
	return out
}

func fromVerdictCells(cells []verdictrun.Cell) []cell {
	out := make([]cell, len(cells))
	for i, c := range cells {
		out[i] = fromVerdictCell(c)
	}
	return out
}
