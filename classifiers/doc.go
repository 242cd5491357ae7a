// Package classifiers holds the topic classifiers of SPEC §5 and the utility metrics that
// compare an original document with its privatised version.
//
//   - fasttext: a supervised fastText-style classifier (hashed word, word n-gram and character
//     n-gram rows averaged into a linear softmax, trained by SGD).
//   - nb and svm: tf-idf word vectors into multinomial naive Bayes or a linear SVM (the
//     analyst of SynTF).
//   - mean-embedding k-NN: Euclidean nearest neighbours between mean word vectors (the SR
//     attacker and topic classifier of Fernandes et al.).
//   - PairMetric: cosine of mean embeddings, Word Mover's Distance and the change of a
//     stylometric vector between an original and its private version.
//
// Every classifier implements learn.Classifier over normalised token sequences.
package classifiers
