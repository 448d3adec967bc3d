// Package atomicfile writes output files so that a crash never leaves a
// half-written file that a later step could take as complete (SPEC §1): the
// content goes to a temporary file in the same directory, which is renamed
// over the destination only once it is complete.
//
// The temporary file is not fsynced: the guarantee is against a process that
// dies mid-write, which is what a later pipeline step can observe, not
// against power loss; syncing every one of hundreds of plots would dominate
// the run time of process.
package atomicfile
