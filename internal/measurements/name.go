package measurements

// FileName is the raw measurements file name of sub-experiment typ
// (formats §1): measurements_<type>.csv. Package experiment, which owns the
// layout, names raw files with it; writers that sit below experiment in
// the import graph (the load runner, whose throughput files experiment
// reads) use it directly.
func FileName(typ string) string { return "measurements_" + typ + ".csv" }
