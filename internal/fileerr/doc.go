// Package fileerr reports bad input the way every mqgate tool must (formats §5):
// the file, the line, the column, and what was expected.
package fileerr
