package rowcache

import "sort"

// Draw is a sample from a cumulative row whose uniform has been drawn but whose row is not
// computed yet: position Pos of document Doc draws from the row of input X with uniform U.
// mechanisms.SampleCumulative consumes exactly one rng.Float64() whatever the row, so drawing U
// at the position's turn and searching the row later gives the draw made at once: a batch of
// documents can draw every uniform in each generator's order and compute each distinct row once.
type Draw struct {
	Doc, Pos, X int
	U           float64
}

// Resolve computes the rows of the distinct inputs of draws, at most window of them at a time
// (rows(ids) returns the cumulative row of each id), and calls set with each draw's index:
// the one mechanisms.SampleCumulative returns for the same uniform.
func Resolve(draws []Draw, window int, rows func(ids []int) map[int][]float64, set func(doc, pos, index int)) {
	order := make([]int, len(draws))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return draws[order[a]].X < draws[order[b]].X })
	for lo := 0; lo < len(order); {
		var ids []int
		hi := lo
		for hi < len(order) && (len(ids) < window || draws[order[hi]].X == ids[len(ids)-1]) {
			if x := draws[order[hi]].X; len(ids) == 0 || x != ids[len(ids)-1] {
				ids = append(ids, x)
			}
			hi++
		}
		got := rows(ids)
		for _, k := range order[lo:hi] {
			d := draws[k]
			c := got[d.X]
			set(d.Doc, d.Pos, sort.Search(len(c), func(i int) bool { return c[i] > d.U }))
		}
		lo = hi
	}
}
