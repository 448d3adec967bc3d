// Package requirementscmd is the command line of the requirements tool: its
// flags, help text and the action that fills a requirementsapp.Config. The
// work is requirementsapp.Run's.
package requirementscmd
