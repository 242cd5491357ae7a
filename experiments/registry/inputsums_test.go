package registry

import (
	"context"
	"strings"
	"testing"

	"dptext/internal/filehash"
	"dptext/mechanisms/erae"
)

// erae's model is hashed from the bytes it is loaded from, and a model file replaced after the
// run hashed it (the manifest's hash, Env.InputSHA256) is refused rather than used under the
// manifest's name. The mutant, building without the comparison, builds the mechanism from the
// other file: the test's second build would then succeed.
func TestEraeRefusesAModelReplacedAfterTheRunHashedIt(t *testing.T) {
	store, train, _, _, _, _ := goldenInputs(t)
	path := goldenModel(t, "erae", store, train)
	sum, _, err := filehash.Sum(path)
	if err != nil {
		t.Fatal(err)
	}
	o, err := Mechanisms["erae"].Decode(testParams(t, "erae", "model = '"+path+"'"))
	if err != nil {
		t.Fatal(err)
	}
	env := &Env{Embeddings: store, Workers: 1, InputSHA256: map[string]string{path: sum}}
	if _, err := o.Build(env, 10); err != nil {
		t.Fatalf("the model the run hashed: %v", err)
	}
	// Another model (one training step more) put in its place after the run hashed the first.
	to := erae.DefaultTrainOptions()
	to.Vocab, to.Hidden, to.Latent, to.Length, to.Batch, to.PretrainSteps, to.Steps = 40, 8, 4, 12, 4, 5, 11
	other, err := erae.Train(context.Background(), train, store, to, "", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Save(path); err != nil {
		t.Fatal(err)
	}
	if _, err := o.Build(&Env{Embeddings: store, Workers: 1}, 10); err != nil {
		t.Fatalf("the other model outside a run (the mutant's build): %v", err)
	}
	env = &Env{Embeddings: store, Workers: 1, InputSHA256: map[string]string{path: sum}}
	_, err = o.Build(env, 10)
	if err == nil || !strings.Contains(err.Error(), "changed after the run hashed it") || !strings.Contains(err.Error(), sum[:12]) {
		t.Errorf("a model replaced after the run hashed it: %v, want it refused naming the manifest's hash", err)
	}
}
