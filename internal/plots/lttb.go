package plots

import "math"

// LTTB downsamples the series (x[i], y[i]) to threshold points with the
// largest-triangle-three-buckets algorithm (Steinarsson 2013). The first and
// last points are kept; between them, each of threshold−2 equal buckets
// contributes the point that forms the largest triangle with the point kept
// from the previous bucket and the average of the next bucket. Peaks survive,
// which is what a latency series must show.
//
// Unlike plain LTTB, the bucket that holds the global maximum of y keeps it,
// and so does the bucket holding the global minimum (unless it is the same
// bucket), so that a plot of the result spans exactly the range of the data:
// its highest point is the summary's Max.
//
// x must be increasing and as long as y. When threshold ≤ 0 or threshold ≥
// len(y), x and y are returned unchanged. A threshold of 1 or 2 keeps the
// first (and last) point. The result is freshly allocated otherwise.
func LTTB(x, y []float64, threshold int) (xs, ys []float64) {
	n := len(y)
	if len(x) != n {
		panic("plots: LTTB: x and y differ in length")
	}
	if threshold <= 0 || threshold >= n {
		return x, y
	}
	if threshold < 3 {
		xs, ys = []float64{x[0]}, []float64{y[0]}
		if threshold == 2 {
			xs, ys = append(xs, x[n-1]), append(ys, y[n-1])
		}
		return xs, ys
	}
	xs = append(make([]float64, 0, threshold), x[0])
	ys = append(make([]float64, 0, threshold), y[0])

	// Buckets cover the points 1..n-2; bucket i is [lo(i), lo(i+1)).
	// Integer arithmetic gives the exact floor(i·(n−2)/(threshold−2)).
	lo := func(i int) int { return i*(n-2)/(threshold-2) + 1 }
	iMax, iMin := 0, 0 // indices of the global max and min
	for i, v := range y {
		if v > y[iMax] {
			iMax = i
		}
		if v < y[iMin] {
			iMin = i
		}
	}
	a := 0
	for i := 0; i < threshold-2; i++ {
		from, to := lo(i), lo(i+1)
		best := from
		switch {
		case from <= iMax && iMax < to:
			best = iMax
		case from <= iMin && iMin < to:
			best = iMin
		default:
			// Average of the next bucket; for the last bucket, the last point.
			nextLo, nextHi := to, lo(i+2)
			if i == threshold-3 {
				nextLo, nextHi = n-1, n
			}
			var avgX, avgY float64
			for j := nextLo; j < nextHi; j++ {
				avgX += x[j]
				avgY += y[j]
			}
			m := float64(nextHi - nextLo)
			avgX /= m
			avgY /= m

			ax, ay := x[a], y[a]
			bestArea := -1.0
			for j := from; j < to; j++ {
				// Twice the triangle's area; the factor does not change the argmax.
				area := math.Abs((ax-avgX)*(y[j]-ay) - (ax-x[j])*(avgY-ay))
				if area > bestArea {
					best, bestArea = j, area
				}
			}
		}
		xs, ys = append(xs, x[best]), append(ys, y[best])
		a = best
	}
	xs, ys = append(xs, x[n-1]), append(ys, y[n-1])
	return xs, ys
}
