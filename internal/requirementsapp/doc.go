// Package requirementsapp is the work of the `requirements` command behind
// a plain configuration (its command line is internal/cliapp/requirementscmd):
// Run checks the mode's flags, runs --runs, loads and admits the experiment
// folders, derives through internal/requirements, writes the requirements
// files and drift report together or not at all (refusing any output over an
// input), prints the tables, and maps errors to the exit codes of formats §5;
// --calibrate and --burst-output-file are its other modes.
package requirementsapp
