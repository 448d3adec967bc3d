package htmlreport

import (
	"cmp"
	"fmt"
	"html/template"
	"strconv"
	"strings"
)

// The view is the page model after validation: anchors assigned, plots
// turned into inline SVG, statuses into CSS classes.
type pageView struct {
	Page
	Verdict  *Verdict
	Sections []sectionView
	// Stats for the footer.
	NumPlots, NumTables int
}

type sectionView struct {
	Section
	Anchor   string
	Depth    int
	Plots    []plotView
	Sections []sectionView
}

type plotView struct {
	Title string
	SVG   template.HTML
}

// ids are the anchors used on a page.
type ids map[string]bool

// newIDs returns the anchors of the page's own parts.
func newIDs() ids { return ids{"top": true, "verdict": true, "contents": true, "notes": true} }

// unique returns id, or id with the smallest suffix "-N" that makes it
// unused, and marks it used.
func (s ids) unique(id string) string {
	u := id
	for n := 2; s[u]; n++ {
		u = id + "-" + strconv.Itoa(n)
	}
	s[u] = true
	return u
}

// slug turns s into an anchor: lower-case letters, digits, '_', '-' and '.'
// are kept, runs of anything else become one '-'.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_', r == '.':
			b.WriteRune(r)
			dash = false
		default:
			if !dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = true
		}
	}
	return strings.Trim(b.String(), "-.")
}

// statusError says why s is not the status of a section or a cell, nil when
// it is one.
func statusError(s string) error {
	switch s {
	case "", StatusPassed, StatusFailed, StatusInconclusive:
		return nil
	}
	return fmt.Errorf("status %q: expected %q, %q, %q or none", s, StatusPassed, StatusFailed, StatusInconclusive)
}

func buildView(p Page) (*pageView, error) {
	v := &pageView{Page: p}
	if p.Verdict != nil {
		if st := p.Verdict.Status; st == "" || statusError(st) != nil {
			return nil, fmt.Errorf("verdict: status %q: expected %q, %q or %q",
				p.Verdict.Status, StatusPassed, StatusFailed, StatusInconclusive)
		}
		if err := checkTable(p.Verdict.Failures); err != nil {
			return nil, fmt.Errorf("verdict: %w", err)
		}
		vd := *p.Verdict
		v.Verdict = &vd
	}
	for _, t := range p.Headline {
		if err := checkTable(t); err != nil {
			return nil, fmt.Errorf("headline: %w", err)
		}
	}
	v.NumTables += len(p.Headline)
	used := newIDs()
	var err error
	v.Sections, err = buildSections(v, p.Sections, "", 0, used)
	return v, err
}

func buildSections(v *pageView, secs []Section, parent string, depth int, used ids) ([]sectionView, error) {
	out := make([]sectionView, 0, len(secs))
	for i, s := range secs {
		id := cmp.Or(slug(s.ID), slug(s.Title), "section-"+strconv.Itoa(i+1))
		if parent != "" {
			id = parent + "-" + id
		}
		sv := sectionView{Section: s, Anchor: used.unique(id), Depth: depth}
		where := fmt.Sprintf("section %q", s.Title)
		if err := statusError(s.Status); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		for _, t := range s.Tables {
			if err := checkTable(t); err != nil {
				return nil, fmt.Errorf("%s: %w", where, err)
			}
		}
		v.NumTables += len(s.Tables)
		for j, pl := range s.Plots {
			label := cmp.Or(pl.Title, s.Title+" plot "+strconv.Itoa(j+1))
			svg, err := inlineSVG(pl.SVG, label)
			if err != nil {
				return nil, fmt.Errorf("%s: plot %q: %w", where, label, err)
			}
			sv.Plots = append(sv.Plots, plotView{Title: pl.Title, SVG: svg})
		}
		v.NumPlots += len(s.Plots)
		var err error
		sv.Sections, err = buildSections(v, s.Sections, sv.Anchor, depth+1, used)
		if err != nil {
			return nil, err
		}
		out = append(out, sv)
	}
	return out, nil
}

func checkTable(t Table) error {
	for i, row := range t.Rows {
		for j, c := range row {
			for _, st := range []string{c.Status, c.SubStatus} {
				if err := statusError(st); err != nil {
					return fmt.Errorf("table %q: row %d, cell %d: %w", t.Caption, i+1, j+1, err)
				}
			}
		}
	}
	return nil
}
