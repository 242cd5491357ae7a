package transport

import (
	"errors"
	"fmt"
	"math"
)

// Distance returns the exact optimal-transport cost between two discrete distributions:
//
//	min Σ_ij F_ij·cost[i·len(wb)+j]  subject to  Σ_j F_ij = wa[i], Σ_i F_ij = wb[j], F ≥ 0,
//
// the Earth Mover's (Word Mover's) distance when wa and wb are normalised word weights and cost
// holds word distances. Weights must be non-negative and finite with equal totals (relative
// difference at most 1e-9; pass normalised weights); costs must be non-negative and finite.
// With uniform weights 1/n on both sides it equals Match(cost, n)/n.
//
// The solver is successive shortest paths on the complete bipartite network (sources = entries
// of wa, sinks = entries of wb, uncapacitated arcs i→j): each round runs a dense Dijkstra search
// from every source with mass left, over reduced costs kept non-negative by node potentials,
// and ships as much as the cheapest path allows. Each round saturates a source, a sink or a
// backward arc, so the number of rounds is small (about len(wa)+len(wb) in practice); a round
// costs O((len(wa)+len(wb))² + len(wa)·len(wb)).
func Distance(wa, wb []float64, cost []float64) (float64, error) {
	na, nb := len(wa), len(wb)
	if len(cost) != na*nb {
		return 0, fmt.Errorf("transport.Distance: %d costs for %d×%d weights", len(cost), na, nb)
	}
	totalA, err := checkedTotal(wa, "wa")
	if err != nil {
		return 0, err
	}
	totalB, err := checkedTotal(wb, "wb")
	if err != nil {
		return 0, err
	}
	if math.Abs(totalA-totalB) > 1e-9*math.Max(totalA, totalB) {
		return 0, fmt.Errorf("transport.Distance: weights total %g and %g, want equal totals", totalA, totalB)
	}
	for i, c := range cost {
		if !(c >= 0) || math.IsInf(c, 1) {
			return 0, fmt.Errorf("transport.Distance: cost[%d] = %g, want finite and ≥ 0", i, c)
		}
	}
	if totalA == 0 {
		return 0, nil
	}
	return newNetwork(wa, wb, cost, math.Max(totalA, totalB)*1e-12).solve(), nil
}

// checkedTotal returns the sum of w after checking that every weight is finite and ≥ 0.
func checkedTotal(w []float64, name string) (float64, error) {
	if len(w) == 0 {
		return 0, errors.New("transport.Distance: " + name + " is empty")
	}
	total := 0.0
	for i, x := range w {
		if !(x >= 0) || math.IsInf(x, 1) {
			return 0, fmt.Errorf("transport.Distance: %s[%d] = %g, want finite and ≥ 0", name, i, x)
		}
		total += x
	}
	return total, nil
}

// network is the residual state of the transportation problem. Nodes 0..na−1 are sources and
// na..na+nb−1 sinks.
type network struct {
	na, nb    int
	cost      []float64
	supply    []float64 // mass left at each source
	demand    []float64 // mass still wanted by each sink
	flow      []float64 // na×nb shipped mass (capacity of the backward arc j→i)
	potential []float64
	tolerance float64 // masses at or below this are treated as zero
}

func newNetwork(wa, wb, cost []float64, tolerance float64) *network {
	return &network{
		na: len(wa), nb: len(wb), cost: cost,
		supply:    append([]float64(nil), wa...),
		demand:    append([]float64(nil), wb...),
		flow:      make([]float64, len(wa)*len(wb)),
		potential: make([]float64, len(wa)+len(wb)),
		tolerance: tolerance,
	}
}

// solve ships all mass along successive shortest paths and returns the total cost.
func (g *network) solve() float64 {
	nodes := g.na + g.nb
	dist := make([]float64, nodes)
	parent := make([]int, nodes)
	done := make([]bool, nodes)
	for {
		sink := g.shortestPaths(dist, parent, done)
		if sink < 0 {
			break
		}
		// Bottleneck along the path: the sink's demand, the backward arcs' flows and the
		// starting source's supply.
		amount := g.demand[sink-g.na]
		node := sink
		for parent[node] >= 0 {
			p := parent[node]
			if p >= g.na { // backward arc sink p → source node
				amount = math.Min(amount, g.flow[node*g.nb+(p-g.na)])
			}
			node = p
		}
		amount = math.Min(amount, g.supply[node])
		g.supply[node] -= amount
		g.demand[sink-g.na] -= amount
		for node = sink; parent[node] >= 0; node = parent[node] {
			p := parent[node]
			if p < g.na {
				g.flow[p*g.nb+(node-g.na)] += amount
			} else {
				g.flow[node*g.nb+(p-g.na)] -= amount
			}
		}
		// Keep reduced costs non-negative: raise every potential by its distance, capped at
		// the distance of the sink reached.
		for v := range g.potential {
			g.potential[v] += math.Min(dist[v], dist[sink])
		}
	}
	total := 0.0
	for i, f := range g.flow {
		if f > 0 {
			total += f * g.cost[i]
		}
	}
	return total
}

// shortestPaths runs a dense Dijkstra search from every source with supply left over reduced
// costs, filling dist and parent (−1 for roots and unreached nodes), and returns the nearest sink
// with demand left, or −1 when no mass is left to ship. Reduced costs are non-negative in exact
// arithmetic; rounding can make them slightly negative, so they are clamped at zero.
func (g *network) shortestPaths(dist []float64, parent []int, done []bool) int {
	inf := math.Inf(1)
	for v := range dist {
		dist[v] = inf
		parent[v] = -1
		done[v] = false
	}
	for i, s := range g.supply {
		if s > g.tolerance {
			dist[i] = 0
		}
	}
	for {
		node, best := -1, inf
		for v, d := range dist {
			if d < best && !done[v] {
				node, best = v, d
			}
		}
		if node < 0 {
			return -1
		}
		done[node] = true
		if node >= g.na && g.demand[node-g.na] > g.tolerance {
			return node
		}
		if node < g.na { // forward arcs to every sink
			base := best + g.potential[node]
			row := g.cost[node*g.nb : (node+1)*g.nb]
			sinkPotential := g.potential[g.na:]
			sinkDist, sinkDone, sinkParent := dist[g.na:], done[g.na:], parent[g.na:]
			for j, c := range row {
				if sinkDone[j] {
					continue
				}
				d := base + c - sinkPotential[j] // best + reduced cost of the arc
				if d < best {
					d = best
				}
				if d < sinkDist[j] {
					sinkDist[j] = d
					sinkParent[j] = node
				}
			}
			continue
		}
		j := node - g.na // backward arcs to the sources that ship to this sink
		base := best + g.potential[node]
		for i := 0; i < g.na; i++ {
			if done[i] || g.flow[i*g.nb+j] <= g.tolerance {
				continue
			}
			d := base - g.cost[i*g.nb+j] - g.potential[i]
			if d < best {
				d = best
			}
			if d < dist[i] {
				dist[i] = d
				parent[i] = node
			}
		}
	}
}
