// Package plots renders mqgate's figures with gonum.org/v1/plot and saves
// them as PNG or SVG.
//
// Builders return an ordinary *plot.Plot that callers may adjust (add a
// legend entry, a plotter) before handing it to Save, Encode or SVG:
//
//   - Histogram: a latency histogram, every non-empty bin visible, so that a
//     single outlier far to the right of the bulk shows.
//   - Series: latency against sample number, downsampled with LTTB (which
//     keeps the peaks, and here the global extremes too) above a point budget.
//   - CategoryLines: one line per series over evenly spaced categories
//     (payloads, experiments), for comparisons and histories: missing values
//     break the lines, marked points get a red cross, category labels are
//     thinned and rotated so that they never overlap, and the legend stands
//     beside the data area, never over it.
//
// All figures share one look: sans-serif labels, round tick values, a light
// grid, and a palette of twelve distinct colours (dash patterns beyond).
// A figure is 8×5 in (800×500 pixels in PNG), widened by its legend so that
// the data area keeps its size.
//
// Rendering is the hot path of process (hundreds of figures per experiment).
// The builders bin and downsample the data themselves. Encode recycles
// raster images and compressors, draws text with the same pixels as vgimg
// but without its per-pixel interface calls (and with a glyph cache), and
// writes PNG with a reduced encoder (None or Up filter per row, a deflate
// made for plot rows) several times faster than image/png. Save writes
// atomically and may be called from several goroutines at once, each with
// its own plot.
package plots
