// Package plots renders mqgate's figures with gonum.org/v1/plot: latency
// histograms, latency time series, and line charts over categorical x values
// (payloads, experiments), and saves them as PNG or SVG.
//
// Builders (Histogram, Series, CategoryLines) return an ordinary *plot.Plot
// that callers may adjust before handing it to Save or SVG. All figures share
// one look: the default fonts, a palette of distinct colours that stays
// readable on print, and legends placed outside the data area so that they
// never hide a line.
//
// Rendering is the hot path of process (hundreds of figures per experiment),
// so the builders bin and downsample the data themselves (LTTB for series)
// and Save encodes PNG at the fastest compression level. Save may be called
// from several goroutines at once.
package plots
