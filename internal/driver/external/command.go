package external

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Placeholders an argument of the command may hold; each is replaced by
// its value for every start of the program.
const (
	PhPayload = "{payload}" // the payload size in bytes: the program is started once per payload
	PhSamples = "{samples}" // --samples
	PhWarmup  = "{warmup}"  // --warmup
	PhOut     = "{out}"     // a path in the experiment folder the program writes its results to
)

var (
	placeholders = []string{PhPayload, PhSamples, PhWarmup, PhOut}
	// placeholderish finds what looks like a placeholder, so that a
	// misspelt one is refused rather than passed on verbatim.
	placeholderish = regexp.MustCompile(`\{[a-z_]+\}`)
)

// ParseCommand splits a command line into its arguments, without a shell:
// either a JSON array of strings (["prog", "-m", "{payload}"]) or words
// separated by blanks, where single quotes keep everything literally,
// double quotes group words, and a backslash escapes the next character.
// Nothing else is interpreted: no variables, globs, pipes or redirections.
func ParseCommand(s string) ([]string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("empty command")
	}
	var argv []string
	if strings.HasPrefix(s, "[") {
		if err := json.Unmarshal([]byte(s), &argv); err != nil {
			return nil, fmt.Errorf("%q: expected a JSON array of strings: %v", s, err)
		}
	} else {
		var err error
		if argv, err = splitWords(s); err != nil {
			return nil, err
		}
	}
	if len(argv) == 0 || argv[0] == "" {
		return nil, fmt.Errorf("%q: no program", s)
	}
	for _, a := range argv {
		for _, ph := range placeholderish.FindAllString(a, -1) {
			if !slices.Contains(placeholders, ph) {
				return nil, fmt.Errorf("argument %q: unknown placeholder %s; expected %s", a, ph, strings.Join(placeholders, ", "))
			}
		}
	}
	if placeholderish.MatchString(argv[0]) {
		return nil, fmt.Errorf("%q: the program itself cannot be a placeholder", argv[0])
	}
	return argv, nil
}

func splitWords(s string) ([]string, error) {
	var (
		argv   []string
		cur    strings.Builder
		inWord bool
		quote  rune
		escape bool
	)
	for _, r := range s {
		switch {
		case escape:
			cur.WriteRune(r)
			escape = false
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\\':
			escape, inWord = true, true
		case quote == '"':
			if r == '"' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				argv = append(argv, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	switch {
	case quote != 0:
		return nil, fmt.Errorf("%q: unterminated %c quote", s, quote)
	case escape:
		return nil, fmt.Errorf("%q: a backslash ends the command", s)
	}
	if inWord {
		argv = append(argv, cur.String())
	}
	return argv, nil
}

// uses reports whether an argument of argv holds placeholder ph.
func uses(argv []string, ph string) bool {
	return slices.ContainsFunc(argv, func(a string) bool { return strings.Contains(a, ph) })
}

// expand returns argv with its placeholders replaced.
func expand(argv []string, payload, samples, warmup int, out string) []string {
	r := strings.NewReplacer(PhPayload, strconv.Itoa(payload), PhSamples, strconv.Itoa(samples),
		PhWarmup, strconv.Itoa(warmup), PhOut, out)
	res := make([]string, len(argv))
	for i, a := range argv {
		res[i] = r.Replace(a)
	}
	return res
}
