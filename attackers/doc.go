// Package attackers holds the authorship attackers of SPEC §5: classifiers whose labels are
// authors, trained on the candidates' known texts and asked to name the author of unknown
// snippets. Every attacker implements learn.Classifier.
//
//   - sr-nn: the nearest neighbour of mean word embeddings (Fernandes et al. 2019, NewSRNN).
//   - koppel11: the random-feature-subset similarity method of Koppel, Schler and Argamon
//     (2011), as reproduced for PAN by Potthast et al. (2016), with a compat and a paper mode.
//   - char-ngram-svm: tf-idf character n-grams into a one-vs-rest linear SVM (the PAN baseline).
//   - writeprints-limited: the WritePrints feature set without part-of-speech features, into a
//     linear SVM or multinomial naive Bayes.
//
// The documents are token sequences. In the Fernandes protocol they are normalised (lowercase,
// no punctuation, no stopwords), which empties several stylometric features; every attacker
// also accepts raw-ish tokens such as the fields of strings.Fields.
package attackers
