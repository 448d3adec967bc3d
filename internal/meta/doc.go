// Package meta reads and writes meta.json, the record `run` leaves in every
// experiment directory (formats §6): what ran, on which host, with which
// configuration, what the latency column means, and per sub-experiment and
// payload how many samples were kept, discarded as warm-up, lost,
// retransmitted, duplicated, reordered or failed, and whether the run
// completed.
//
// Readers such as the history and check tools use Start, System.Version,
// System.Commit and Host; Host.Fingerprint gives the string to compare across
// experiments (comparisons across different fingerprints warn).
package meta
