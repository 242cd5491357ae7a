// Package classifiers holds the topic classifiers of SPEC §5 (the utility metrics are in
// package utility, the authorship attackers in package attackers).
//
//   - fasttext: a supervised fastText-style classifier (hashed word, word n-gram and character
//     n-gram rows averaged into a linear softmax, trained by SGD).
//   - nb and svm: tf-idf word vectors into multinomial naive Bayes or a linear SVM (the
//     analyst of SynTF).
//   - mean-embedding k-NN: Euclidean nearest neighbours between mean word vectors (the SR
//     topic classifier of Fernandes et al.; attackers.NewSRNN is its author attacker).
//
// Every classifier implements learn.Classifier over normalised token sequences.
package classifiers
