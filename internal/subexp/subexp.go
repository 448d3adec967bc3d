// Package subexp owns the grammar of sub-experiment names (formats §1):
// <scope>_<reliability>[_<transport>][_security], lower case, the
// reliability one of best_effort, reliable or exactly_once. run names its
// raw files by it, process names summaries by it, and every later tool
// recovers a file's type from its name, so there is one definition.
package subexp

import "regexp"

// Grammar is the formats §1 rule in words, for error messages.
const Grammar = "<scope>_<reliability>[_<transport>][_security], lower case, reliability best_effort, reliable or exactly_once"

var pattern = regexp.MustCompile(`^[a-z][a-z0-9]*_(best_effort|reliable|exactly_once)(_[a-z0-9]+)?(_security)?$`)

// Valid reports whether name is a sub-experiment name.
func Valid(name string) bool { return pattern.MatchString(name) }
