package htmlreport

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"regexp"
	"strings"
)

var (
	// svgPrologRE matches what may precede the root element of an SVG file.
	svgPrologRE = regexp.MustCompile(`^(?s)(\s+|<\?xml.*?\?>|<!--.*?-->|<!DOCTYPE[^>]*>)`)
	// sizeAttrRE matches the width and height attributes of the root
	// element, which would fix the plot's size in the page.
	sizeAttrRE = regexp.MustCompile(`\s(width|height)="[^"]*"`)
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
	if !bytes.HasPrefix(b, []byte("<svg")) || len(b) < 5 || strings.IndexByte(" \t\n\r>/", b[4]) < 0 {
		return "", errors.New("plot is not SVG: the document does not start with an <svg> element")
	}
	end := bytes.IndexByte(b, '>')
	if end < 0 {
		return "", errors.New("plot SVG: the <svg> start tag is not closed")
	}
	if err := checkSafe(b); err != nil {
		return "", fmt.Errorf("plot SVG: %w (scripts and external references are not allowed)", err)
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

// unsafeElements could run code or embed another document.
var unsafeElements = map[string]bool{"script": true, "foreignobject": true, "iframe": true, "object": true, "embed": true}

// checkSafe scans the tags of an SVG document for what could run code or
// load something from outside the page: script-like elements, event handler
// attributes, javascript: values and links that are not local or data URLs.
// It is a scan of tags, not a full XML parse: plots come from our own
// renderer, and this keeps a mistake in them from breaking the page.
func checkSafe(doc []byte) error {
	for i := 0; i < len(doc); {
		j := bytes.IndexByte(doc[i:], '<')
		if j < 0 {
			break
		}
		i += j + 1
		k := bytes.IndexByte(doc[i:], '>')
		if k < 0 {
			return errors.New("unclosed tag")
		}
		tag := bytes.ToLower(doc[i : i+k])
		i += k + 1
		if err := checkTag(tag); err != nil {
			return err
		}
	}
	return nil
}

func checkTag(tag []byte) error {
	tag = bytes.TrimPrefix(tag, []byte("/"))
	n := upTo(tag, " \t\r\n/")
	if name := string(tag[:n]); unsafeElements[name] {
		return fmt.Errorf("element <%s>", name)
	}
	rest := tag[n:]
	for len(rest) > 0 {
		rest = bytes.TrimLeft(rest, " \t\r\n/")
		e := upTo(rest, "= \t\r\n")
		attr := string(rest[:e])
		rest = bytes.TrimLeft(rest[e:], " \t\r\n")
		var val []byte
		if len(rest) > 0 && rest[0] == '=' {
			rest = bytes.TrimLeft(rest[1:], " \t\r\n")
			if len(rest) > 0 && (rest[0] == '"' || rest[0] == '\'') {
				q := rest[0]
				end := bytes.IndexByte(rest[1:], q)
				if end < 0 {
					return fmt.Errorf("attribute %s: unterminated value", attr)
				}
				val, rest = rest[1:1+end], rest[2+end:]
			} else {
				end := upTo(rest, " \t\r\n")
				val, rest = rest[:end], rest[end:]
			}
		}
		switch {
		case strings.HasPrefix(attr, "on"):
			return fmt.Errorf("event handler attribute %s", attr)
		case bytes.Contains(val, []byte("javascript:")):
			return fmt.Errorf("attribute %s: javascript: URL", attr)
		case attr == "href" || strings.HasSuffix(attr, ":href") || attr == "src":
			v := bytes.TrimSpace(val)
			if !bytes.HasPrefix(v, []byte("#")) && !bytes.HasPrefix(v, []byte("data:image/")) {
				return fmt.Errorf("attribute %s: link %q outside the page", attr, v)
			}
		}
	}
	return nil
}

// upTo returns the index of the first of chars in b, or len(b).
func upTo(b []byte, chars string) int {
	if i := bytes.IndexAny(b, chars); i >= 0 {
		return i
	}
	return len(b)
}
