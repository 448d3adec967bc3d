package htmlreport_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/mqgate/mqgate/internal/htmlreport"
)

func ExampleWriteFile() {
	page := htmlreport.Page{
		Title: "Check report",
		Verdict: &htmlreport.Verdict{
			Status:  htmlreport.StatusFailed,
			Summary: "1 of 33 checks failed",
		},
		Sections: []htmlreport.Section{{
			ID: "interprocess_reliable", Title: "interprocess_reliable", Status: htmlreport.StatusFailed,
			Tables: []htmlreport.Table{{
				Header: []string{"Check", "Bytes", "Status"},
				Rows: [][]htmlreport.Cell{
					{htmlreport.Text("99%"), htmlreport.Num("16384"), {Text: htmlreport.StatusFailed, Status: htmlreport.StatusFailed}},
				},
			}},
			Sections: []htmlreport.Section{{ID: "16384", Title: "16384 bytes"}},
		}},
	}
	dir, err := os.MkdirTemp("", "report")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "check.html")
	if err := htmlreport.WriteFile(path, page); err != nil {
		fmt.Println(err)
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	// The verdict comes first; every section has an anchor.
	fmt.Println(regexp.MustCompile(`<p class="verdict-line">.*</p>`).FindString(string(b)))
	for _, m := range regexp.MustCompile(`<details id="([^"]+)" class="section`).FindAllStringSubmatch(string(b), -1) {
		fmt.Println("#" + m[1])
	}
	// Output:
	// <p class="verdict-line"><span class="verdict-status">FAILED</span> <span class="verdict-summary">1 of 33 checks failed</span></p>
	// #interprocess_reliable
	// #interprocess_reliable-16384
}
