// Package atomicfile writes output files so that a crash never leaves a
// half-written file that a later step could take as complete (formats §1): the
// content goes to a temporary file in the same directory, which is synced to
// disk and only then renamed over the destination. After a process crash or
// a power loss the destination holds either the old file or the complete new
// one (the rename itself may be lost to a power loss, the content not).
// Files that belong together (a CA and its certificates) go through
// WriteAll: all are written before the first is renamed.
package atomicfile
