package htmlreport

import (
	_ "embed"
	"html/template"
	"regexp"
	"strconv"
	"strings"
)

var (
	//go:embed page.tmpl
	pageTmpl string
	//go:embed style.css
	styleCSS string
	//go:embed script.js
	scriptJS string
)

var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{
	"css":   func() template.CSS { return template.CSS(styleCSS) },
	"js":    func() template.JS { return template.JS(scriptJS) },
	"upper": strings.ToUpper,
	"count": func(n int, noun string) string {
		if n == 1 {
			return "1 " + noun
		}
		return strconv.Itoa(n) + " " + noun + "s"
	},
	"hlevel": func(depth int) int { return min(depth+2, 6) },
	"wbr":    wordBreaks,
	// A verdict table's text wraps (style.css), but a number never
	// parts from its unit there (1.210 µs).
	"cellText": func(c Cell) string {
		if c.Numeric {
			return numberUnit.ReplaceAllString(c.Text, "$1\u00a0$2")
		}
		return c.Text
	},
	"cellClass": func(c Cell) string {
		var cls []string
		if c.Numeric {
			cls = append(cls, "num")
		}
		// A cell with a second value marks each value on its own.
		if c.Status != "" && c.Sub == "" {
			cls = append(cls, "st-"+c.Status)
		}
		return strings.Join(cls, " ")
	},
}).Parse(pageTmpl))

// numberUnit is a digit, a space and a unit (a letter, µ or %).
var numberUnit = regexp.MustCompile(`(\d) ([\pL%])`)

// wordBreaks escapes s and lets a line break after each underscore, so that
// a row header, a sub-experiment's name (interprocess_best_effort_tcp),
// wraps between its words on a narrow screen, never inside one.
func wordBreaks(s string) template.HTML {
	return template.HTML(strings.ReplaceAll(template.HTMLEscapeString(s), "_", "_<wbr>"))
}
