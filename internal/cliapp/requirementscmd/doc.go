// Package requirementscmd is the command line of the requirements tool: its
// flags, help text and the action that fills a requirements.Config. The
// work is requirements.Run's.
package requirementscmd
