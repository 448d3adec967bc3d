// Package plots renders mqgate's figures with gonum.org/v1/plot and saves
// them as PNG or SVG.
//
// Builders return an ordinary *plot.Plot that callers may adjust (add a
// legend entry, a plotter) before handing it to Save, Encode or SVG:
//
//   - Histogram: a latency histogram of the body of the distribution
//     (BodyBins): samples far beyond the 99.9th percentile go to one
//     labelled overflow bar past an axis break, a tight bulk with a long
//     tail gets logarithmic bins, and the title says which was done. Every
//     non-empty bin is visible, so that a single outlier shows.
//   - Series: latency against sample number, downsampled with LTTB (which
//     keeps the peaks, and here the global extremes too) above a point budget.
//   - CategoryLines: one line per series over evenly spaced categories
//     (payloads, experiments), for comparisons and histories: missing values
//     break the lines, marked points get a red cross, category labels are
//     thinned and rotated so that they never overlap, and the legend stands
//     beside the data area, never over it. Values spanning more than
//     LogRatio get a log y axis with the powers of ten labelled.
//   - HeatMap: a row of cells per series (its name above it) over the
//     categories, each cell coloured by its value on one scale (log beyond
//     LogRatio) and labelled with it, for comparisons of many series (the
//     ten sub-experiments' maxima, which as lines cross each other at
//     every payload); selected cells capped with a bar. The figure grows
//     taller with the rows.
//   - Bubbles: a scatter plot over categories whose circles grow and
//     change colour with a value written on each (the burst scatter plots:
//     demand × recovery time).
//
// All figures share one look: sans-serif labels, round tick values, a light
// grid, and twelve series styles, each a distinct colour (colour-blind
// friendly first) and a distinct marker shape, filled and hollow in turn, so
// that ten series stay apart in greyscale too (dash patterns beyond twelve).
// A figure is 8×5 in (800×500 pixels in PNG), widened by its legend so that
// the data area keeps its size. SVG lays the same plot out for an HTML page
// instead: PageWidth (4 in) wide, so that a phone shows it at about its
// size and a laptop three abreast, with larger fonts, the title wrapped,
// category labels turned and thinned as the width needs, and the legend in
// columns below the data; text stays 12 CSS pixels or more on both.
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
