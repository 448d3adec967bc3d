// Package gatesim is the simulation suite of the paired gates: it draws
// families of pair log ratios (normal, autocorrelated, skewed, with a rare
// mode; at the margins, unchanged or regressed) and runs them through the
// production functions, paired.Analyze for the fixed design and seq.Gate
// for the sequential one, counting false FAILs, false PASSes and the
// operating characteristics with 95 % Clopper–Pearson intervals.
//
// The package has tests only. `go test ./internal/stats/gatesim` runs a
// few hundred sequences per case with fixed seeds; GATESIM_LARGE=1 runs
// the large version (thousands per case) whose bounds docs/methods.md
// quotes, and prints the operating-characteristics table.
package gatesim
