// Command mqgate runs any of the six tools, `mqgate run|process|check|
// compare|requirements|history …`: the name `make install` and `go install`
// put on PATH; see 'mqgate --help'.
package main

import "github.com/mqgate/mqgate/internal/cliapp/mqgatecmd"

func main() { mqgatecmd.Main() }
