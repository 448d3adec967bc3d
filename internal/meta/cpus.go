package meta

// Placements of the two ends (CPUs.Placement). An empty placement is one
// given by run's --cpus, as in files written before run pinned by default.
const (
	// PlacementDefault: run chose the CPUs itself, the first two this
	// process may use, and the OS honoured them.
	PlacementDefault = "default"
	// PlacementNone: --cpus none, neither end pinned.
	PlacementNone = "none"
	// PlacementNotPinned: run would have pinned by default but could not
	// (one usable CPU, or the OS did not honour it); CPUs.Note says why,
	// and an end left unpinned is -1.
	PlacementNotPinned = "not pinned"
)
