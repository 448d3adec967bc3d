// Package e2e holds end-to-end tests: they build the command-line tools, run
// the chain process → requirements → check → compare → history on the
// Fast-RTPS v1.9.2 fixture and experiments derived from it, and load each
// HTML report the tools write in headless Chromium.
//
// The tests that gate real runs and assert the verdicts (TestCIRecipes,
// TestREADMECommands, TestServiceExample) run one at a time, alone: a test
// beside them on the same two cores would make consecutive pairs alike and
// hold the gate to its budget. Every other test calls t.Parallel, so Go
// runs them after the gating tests, two at a time (TestBadInputCatalogue
// sets PATH for one case and stays sequential).
//
// The package has no code of its own. Its tests are skipped with -short.
package e2e
