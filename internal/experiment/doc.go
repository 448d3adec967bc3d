// Package experiment owns the results layout of SPEC §1: which files an
// experiment directory holds, how they are named, and how a sub-experiment
// type is recovered from a file name (as the Fast-RTPS scripts do).
package experiment
