package audit

import (
	"fmt"
	"testing"

	"dptext/internal/fixtures"
	"dptext/internal/rngs"
)

// A game released in one call with its generator repeated (InTurn) gives exactly the finding of
// the game released run by run, for every noise-then-decode mechanism (EMD's bag order draws
// its shuffle, Vickrey its choices, both in turn), with an out-of-vocabulary word in the
// documents. Mutant (run by hand for issue 48): Vickrey's choice uniforms drawn after the whole
// batch's noise instead of at each document's turn fails it.
func TestGameInTurnEqualsRunByRun(t *testing.T) {
	store := fixtures.Grid(t, 10)
	for name, m := range noiseMechanisms(t, store, 2) {
		tg := target(t, name, m, store)
		if !tg.InTurn {
			t.Fatalf("%s does not draw in turn", name)
		}
		g := game{kind: "one word", x: []string{store.Word(3), store.Word(40), "unknown"}, y: []string{store.Word(3), store.Word(41), "unknown"}}
		batched := playGame(tg, rngs.New(48, "game/"+name), g, 300, 0.05)
		tg.InTurn = false
		alone := playGame(tg, rngs.New(48, "game/"+name), g, 300, 0.05)
		if fmt.Sprint(batched) != fmt.Sprint(alone) {
			t.Errorf("%s: in one call %s, run by run %s", name, batched.Output, alone.Output)
		}
		t.Logf("%s: %s", name, batched.Output)
	}
}
