// Package csvfile holds what the readers of mqgate's small CSV files
// (summaries, requirements) share: an exact-header check and CSV syntax
// errors reported as file:line errors.
package csvfile
