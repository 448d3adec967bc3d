package requirements

// Test data for the command's tests, which are in package requirements_test
// because they run internal/cliapp/requirementscmd.
var (
	Golden                = golden
	SampleObservations    = observations
	LogNormalObservations = lognormalObservations
)
