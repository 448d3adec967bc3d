package htmlreport

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"regexp"
)

var (
	// svgPrologRE matches what may precede the root element of an SVG file.
	svgPrologRE = regexp.MustCompile(`^(?s)(\s+|<\?xml.*?\?>|<!--.*?-->|<!DOCTYPE[^>]*>)`)
	// sizeAttrRE matches the width and height attributes of the root
	// element, which would fix the plot's size in the page.
	sizeAttrRE = regexp.MustCompile(`\s(width|height)="[^"]*"`)
	// unsafeSVGRE matches SVG content that could run code or load something.
	unsafeSVGRE = regexp.MustCompile(`(?i)<script|<foreignObject|\son[a-z]+\s*=|javascript:|<iframe|(?:xlink:)?href\s*=\s*"(?:https?:|//)`)
)

// inlineSVG returns the SVG document doc as an element to inline in HTML:
// prolog stripped, fixed width and height dropped so that CSS sizes it by its
// viewBox, and labelled for screen readers.
func inlineSVG(doc []byte, label string) (template.HTML, error) {
	b := doc
	for {
		loc := svgPrologRE.FindIndex(b)
		if loc == nil {
			break
		}
		b = b[loc[1]:]
	}
	if !bytes.HasPrefix(b, []byte("<svg")) || len(b) < 5 || !isSpaceOrEnd(b[4]) {
		return "", errors.New("plot is not SVG: the document does not start with an <svg> element")
	}
	end := bytes.IndexByte(b, '>')
	if end < 0 {
		return "", errors.New("plot SVG: the <svg> start tag is not closed")
	}
	if loc := unsafeSVGRE.FindIndex(b); loc != nil {
		return "", fmt.Errorf("plot SVG: unexpected %q (scripts and external references are not allowed)", b[loc[0]:loc[1]])
	}
	start := b[:end]
	if !bytes.Contains(start, []byte("viewBox=")) {
		return "", errors.New("plot SVG: the <svg> element has no viewBox, so it cannot scale")
	}
	start = sizeAttrRE.ReplaceAll(start, nil)
	var out bytes.Buffer
	out.Grow(len(b) + 64 + len(label))
	out.Write(start)
	out.WriteString(` class="plot" role="img" aria-label="`)
	template.HTMLEscape(&out, []byte(label))
	out.WriteByte('"')
	out.Write(bytes.TrimRight(b[end:], " \t\r\n"))
	return template.HTML(out.String()), nil
}

func isSpaceOrEnd(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '>' || c == '/'
}
