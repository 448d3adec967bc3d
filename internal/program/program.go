package program

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Front is the program that runs every tool by name, `mqgate TOOL …`: the
// one program `make install` and `go install` put on PATH.
const Front = "mqgate"

// Tools are the tools, in the order of a results pipeline.
var Tools = []string{"run", "process", "check", "compare", "requirements", "history"}

// Invocation is how the running tool was started.
type Invocation struct {
	// Exe is the running executable; "" means os.Executable().
	Exe string
	// Front is the program that runs the tool by name (Front, for
	// `mqgate run`), or "" when the tool is its own executable (bin/run).
	Front string
	// Tool is the running tool ("run"), or "" outside any tool.
	Tool string
}

type key struct{}

// NewContext returns ctx carrying in.
func NewContext(ctx context.Context, in Invocation) context.Context {
	return context.WithValue(ctx, key{}, in)
}

// FromContext returns the Invocation ctx carries; without one, the
// running executable is taken to be the tool itself.
func FromContext(ctx context.Context) Invocation {
	in, _ := ctx.Value(key{}).(Invocation)
	return in
}

// Name is the running tool's name as the user typed it: "mqgate run"
// under the front, "run" otherwise.
func (in Invocation) Name() string { return in.NameOf(in.Tool) }

// NameOf is how the user starts tool from where this one runs: "mqgate
// process" under the front, "process" otherwise.
func (in Invocation) NameOf(tool string) string {
	if in.Front != "" {
		return in.Front + " " + tool
	}
	return tool
}

// Self is the command line that starts the running tool again: the
// executable, followed by the tool's name under the front.
func (in Invocation) Self() ([]string, error) {
	exe, err := in.exe()
	if err != nil {
		return nil, err
	}
	if in.Front != "" && in.Tool != "" {
		return []string{exe, in.Tool}, nil
	}
	return []string{exe}, nil
}

// Command is the command line that starts tool from this program. Under
// the front it is the front's own executable and the tool's name, and the
// running tool starts itself; otherwise tool's executable is looked up
// beside this one first, so that tools installed together stay together,
// then on PATH, and failing both the front is, beside this program or on
// PATH.
func (in Invocation) Command(tool string) ([]string, error) {
	if in.Front != "" || tool == in.Tool {
		self, err := Invocation{Exe: in.Exe, Front: in.Front, Tool: tool}.Self()
		if err != nil {
			return nil, fmt.Errorf("cannot find this program to start %s: %w", in.NameOf(tool), err)
		}
		return self, nil
	}
	exe, err := in.exe()
	dir := ""
	if err == nil {
		dir = filepath.Dir(exe)
		if p := filepath.Join(dir, tool); isExecutable(p) {
			return []string{p}, nil
		}
		if p := filepath.Join(dir, Front); isExecutable(p) {
			return []string{p, tool}, nil
		}
	}
	if p, err := exec.LookPath(tool); err == nil {
		return []string{p}, nil
	}
	if p, err := exec.LookPath(Front); err == nil {
		return []string{p, tool}, nil
	}
	where := "beside this program"
	if dir != "" {
		where += " (" + dir + ")"
	}
	return nil, fmt.Errorf("cannot find the %s tool: neither %s nor %s is %s or on PATH; "+
		"install %s with 'make install' (or every tool with 'make build')", tool, tool, Front, where, Front)
}

// Reword names the tools in msg as the user starts them: under the front,
// every quoted command line that starts with the name of a tool (Tools,
// and the running one: 'run --help', 'process') gets the front's name
// before it ('mqgate run --help'). The
// tools' messages name a tool as its own executable is called; Reword is
// applied where they are printed. An opening quote follows the start of
// msg or a character other than a letter or digit, so that an apostrophe
// ("the program's run") is left alone.
func (in Invocation) Reword(msg string) string {
	if in.Front == "" {
		return msg
	}
	var b strings.Builder
	for i := 0; i < len(msg); i++ {
		b.WriteByte(msg[i])
		if msg[i] != '\'' || (i > 0 && isWordByte(msg[i-1])) {
			continue
		}
		for _, tool := range append(Tools[:len(Tools):len(Tools)], in.Tool) {
			if tool == "" {
				continue
			}
			rest, ok := strings.CutPrefix(msg[i+1:], tool)
			if ok && (strings.HasPrefix(rest, " ") || strings.HasPrefix(rest, "'")) {
				b.WriteString(in.Front + " ")
				break
			}
		}
	}
	return b.String()
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

func (in Invocation) exe() (string, error) {
	if in.Exe != "" {
		return in.Exe, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	if exe == "" {
		return "", errors.New("the executable's path is unknown")
	}
	return exe, nil
}

func isExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}
