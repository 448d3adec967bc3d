package runapp

// SplitCommand is splitCommand, for the tests of package runapp_test.
var SplitCommand = splitCommand
