// Package summary reads and writes summary files (formats §3), one row per
// payload:
//
//	Bytes,Samples,Max,Min,Mean,Median,Stdev,Mean jitter,Max jitter,90%,99%,99.99%
//	16,10000,122.599,7.029,8.272,7.486,2.367,0.534,109.092,10.607,14.735,58.631
//
// every float printed with exactly three decimals (%.3f), as the Fast-RTPS
// scripts print them, so that files written by either are interchangeable.
//
// The reader uses encoding/csv rather than gocsv because every error must
// name the line and column, and the header must match exactly.
package summary
