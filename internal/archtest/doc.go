// Package archtest holds no code: its test reads the import lines of every
// non-test Go file of the module and enforces the layering rules of
// docs/architecture.md, so that the map and the code cannot drift apart,
// and that a concept with one type (the system measured, meta.SystemInfo)
// is declared once; and it holds every CSV header mqgate writes to the
// units rule of docs/formats.md §7.
package archtest
