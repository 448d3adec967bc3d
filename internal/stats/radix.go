package stats

import (
	"math"
	"slices"
)

// radixMin is the length from which sortFloats uses a radix sort: below it
// pdqsort is as fast and needs no key buffer.
const radixMin = 256

// sortFloats sorts x (no NaNs) in ascending order. Summaries sort every
// payload's latencies, which dominated process's run time with a
// comparison sort; an LSD radix sort on the floats' order-preserving bit
// keys does the same work in a few linear passes. keys must hold 2·len(x).
func sortFloats(x []float64, keys []uint64) {
	n := len(x)
	if n < radixMin || len(keys) < 2*n {
		slices.Sort(x)
		return
	}
	a, b := keys[:n], keys[n:2*n]
	for i, v := range x {
		u := math.Float64bits(v)
		// Flip the sign bit of non-negative numbers and every bit of
		// negative ones, so that unsigned order is numeric order.
		if u>>63 == 0 {
			u |= 1 << 63
		} else {
			u = ^u
		}
		a[i] = u
	}
	var count [256]int
	for shift := uint(0); shift < 64; shift += 8 {
		clear(count[:])
		for _, u := range a {
			count[byte(u>>shift)]++
		}
		if count[byte(a[0]>>shift)] == n {
			continue // every key has this digit: the pass would not move anything
		}
		pos := 0
		for d := range count {
			c := count[d]
			count[d] = pos
			pos += c
		}
		for _, u := range a {
			d := byte(u >> shift)
			b[count[d]] = u
			count[d]++
		}
		a, b = b, a
	}
	for i, u := range a {
		if u>>63 == 1 {
			u &^= 1 << 63
		} else {
			u = ^u
		}
		x[i] = math.Float64frombits(u)
	}
}
