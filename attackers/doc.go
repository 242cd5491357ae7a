// Package attackers holds the authorship attackers of SPEC §5: classifiers whose labels are
// authors, trained on the candidates' known texts and asked to name the author of unknown
// snippets. Every attacker implements learn.Classifier.
//
// The attackers a config may name, with their descriptions and defaults, are listed once, in
// the registry registry.Scorers (`dptext list` shows them).
//
// The documents are token sequences. In the Fernandes protocol they are normalised (lowercase,
// no punctuation, no stopwords), which empties several stylometric features; every attacker
// also accepts raw-ish tokens such as the fields of strings.Fields.
package attackers
