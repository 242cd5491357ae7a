package embeddings

// MeanVector sets mean (of length Dim) to the average raw vector of the in-vocabulary words of
// doc (repeated words count repeatedly) and reports whether there was any; if not, mean is
// zero. It is the document representation of the mean-embedding scorers.
func (s *Store) MeanVector(doc []string, mean []float64) bool {
	clear(mean)
	known := 0
	for _, w := range doc {
		i, ok := s.Lookup(w)
		if !ok {
			continue
		}
		known++
		for j, v := range s.Vector(i) {
			mean[j] += float64(v)
		}
	}
	if known == 0 {
		return false
	}
	for j := range mean {
		mean[j] /= float64(known)
	}
	return true
}
