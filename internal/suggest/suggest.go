// Package suggest finds what a mistyped name probably meant: the "did you
// mean" of flags, sub-experiment names and other closed lists.
package suggest

import (
	"slices"
	"strings"
)

// Nearest returns the known name closest to name, or "" when none is close
// enough to be what was meant. Each group is one item's names (a flag and
// its aliases, or a single name). Close means within an edit distance of a
// quarter of the shorter length (at least 1; a transposition counts one,
// case ignored), or, failing that, the only item with a name name begins
// (given as the item's first name). Names shorter than 2 are never guessed
// from or at.
func Nearest(name string, groups ...[]string) string {
	if len(name) < 2 {
		return ""
	}
	best, bestD := "", 0
	var prefixed []string
	for _, names := range groups {
		for _, n := range names {
			if len(n) < 2 {
				continue
			}
			if len(name) >= 3 && strings.HasPrefix(n, name) && !slices.Contains(prefixed, names[0]) {
				prefixed = append(prefixed, names[0])
			}
			d := Distance(strings.ToLower(name), strings.ToLower(n))
			if best == "" || d < bestD {
				best, bestD = n, d
			}
		}
	}
	switch {
	case best != "" && bestD <= max(1, min(len(name), len(best))/4):
		return best
	case len(prefixed) == 1:
		return prefixed[0]
	}
	return ""
}

// NearestName is Nearest over names, each one item of its own: a list
// given to Nearest as one group is one item, whose first name the prefix
// rule returns ("nats" once got intraprocess_best_effort).
func NearestName(name string, names []string) string {
	groups := make([][]string, len(names))
	for i, n := range names {
		groups[i] = []string{n}
	}
	return Nearest(name, groups...)
}

// Distance is the optimal string alignment distance of a and b:
// insertions, deletions, substitutions and transpositions of neighbours.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
