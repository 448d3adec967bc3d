// Package htmlreport renders one self-contained HTML page from a page model:
// a verdict banner, summary tables and inline SVG plots, grouped in sections
// (sub-experiments) and nested sections (payloads).
//
// The page needs nothing but itself: CSS is inline, plots are inline SVG, and
// the few lines of JavaScript only add conveniences (expand/collapse all,
// opening the section a link points to, showing the contents on wide
// screens); the page reads the same without them. It is responsive: tables
// scroll sideways on narrow screens, plots stand one a row on a phone and
// three abreast on a laptop (340 to 450 pixels wide, where the 4-inch
// figures of plots.SVG have text of 12 pixels or more), and the contents
// are a <details> element, collapsed until the script opens it on a screen
// at least 700 pixels wide, so that on a phone the verdict and the first
// section are on the first screen.
//
// Tools build a Page (accumulate, then render) and call WriteFile.
// Every string of the model is escaped by html/template; section IDs are
// sanitised into anchors that are unique within the page, nested sections
// being prefixed by their parent's anchor. Plot SVG, as written by gonum's
// vgsvg (plots.SVG), is inlined after its XML prolog is stripped and its root
// element checked.
//
// Nested sections are collapsed <details> elements, so that a page holding
// hundreds of plots lays out and paints only what the reader opens.
package htmlreport
