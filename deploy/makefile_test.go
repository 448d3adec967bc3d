package deploy

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/testenv"
)

// elfProgram writes a minimal 64-bit little-endian ELF header for machine,
// followed by one program header per type in phTypes, and returns its path.
func elfProgram(t *testing.T, name string, machine uint16, phTypes ...uint32) string {
	t.Helper()
	const ehsize, phentsize = 64, 56
	b := make([]byte, ehsize+phentsize*len(phTypes))
	copy(b, "\x7fELF")
	b[4], b[5], b[6] = 2, 1, 1 // ELFCLASS64, little-endian, version 1
	le := binary.LittleEndian
	le.PutUint16(b[16:], 2) // ET_EXEC
	le.PutUint16(b[18:], machine)
	le.PutUint32(b[20:], 1)
	le.PutUint64(b[32:], ehsize) // e_phoff
	le.PutUint16(b[52:], ehsize)
	le.PutUint16(b[54:], phentsize)
	le.PutUint16(b[56:], uint16(len(phTypes)))
	for i, typ := range phTypes {
		le.PutUint32(b[ehsize+i*phentsize:], typ)
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

const (
	ptLoad   = 1
	ptInterp = 3
	ptPhdr   = 6
	emX86_64 = 62
	emARM64  = 183
)

// makeDryRun returns what `make -n target` in the repository would run,
// with MQGATE_ZENOH_HELPER set to helper (unset when empty).
func makeDryRun(t *testing.T, helper string, target string) string {
	t.Helper()
	mk := testenv.Program(t, "make", "install it with: apt-get install make")
	cmd := exec.Command(mk, "-n", "-C", "..", target)
	env := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MQGATE_ZENOH_HELPER=") && !strings.HasPrefix(kv, "MAKEFLAGS=") {
			env = append(env, kv)
		}
	}
	if helper != "" {
		env = append(env, "MQGATE_ZENOH_HELPER="+helper)
	}
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make -n %s: %v\n%s", target, err, out)
	}
	return string(out)
}

// TestMakeImageReusesHelper: with MQGATE_ZENOH_HELPER naming a helper
// built before (as .ci/run exports it), `make image` checks it and copies
// it under the name the image runs, without running cargo; without it,
// `make image` builds the static helper.
func TestMakeImageReusesHelper(t *testing.T) {
	helper := elfProgram(t, "my helper", emX86_64, ptPhdr, ptLoad)
	out := makeDryRun(t, helper, "image")
	for _, no := range []string{"cargo", "build-zenoh.sh static"} {
		if strings.Contains(out, no) {
			t.Errorf("make -n image MQGATE_ZENOH_HELPER=%s runs %q (a rebuild of the helper):\n%s", helper, no, out)
		}
	}
	check := "build-zenoh.sh check-static '" + helper + "'"
	cp := "cp '" + helper + "' bin/image/bin/mqgate-zenoh"
	ci, ri, pi := strings.Index(out, check), strings.Index(out, "rm -rf bin/image"), strings.Index(out, cp)
	if ci < 0 || pi < 0 || ri < 0 || ci > ri {
		t.Errorf("make -n image: want %q before the image's folder is emptied, and %q:\n%s", check, cp, out)
	}

	out = makeDryRun(t, "", "image")
	if !strings.Contains(out, "build-zenoh.sh static") {
		t.Errorf("make -n image without MQGATE_ZENOH_HELPER does not build the static helper:\n%s", out)
	}
}

// TestCheckStatic runs `scripts/build-zenoh.sh check-static` with no cargo
// on PATH: a static x86-64 program passes; a dynamically linked one (a
// PT_INTERP program header), one for another machine, a file that is not
// ELF and a missing file are refused with exit 2 and the reason.
func TestCheckStatic(t *testing.T) {
	bin := t.TempDir() // PATH holds only what the check may use
	for _, p := range []string{"bash", "od", "find", "dirname"} {
		path, err := exec.LookPath(p)
		if err != nil {
			t.Skipf("%s is not installed", p)
		}
		if err := os.Symlink(path, filepath.Join(bin, p)); err != nil {
			t.Fatal(err)
		}
	}
	text := filepath.Join(t.TempDir(), "README")
	if err := os.WriteFile(text, []byte("not a program\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, file string
		code       int
		stderr     string
	}{
		{"static", elfProgram(t, "static", emX86_64, ptPhdr, ptLoad, ptLoad), 0, ""},
		{"dynamic", elfProgram(t, "dynamic", emX86_64, ptPhdr, ptInterp, ptLoad), 2, "dynamically linked"},
		{"arm64", elfProgram(t, "arm64", emARM64, ptLoad), 2, "want x86-64"},
		{"text", text, 2, "not a 64-bit little-endian ELF program"},
		{"missing", filepath.Join(t.TempDir(), "nothing"), 2, "no such file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(filepath.Join(bin, "bash"), "../scripts/build-zenoh.sh", "check-static", c.file)
			cmd.Env = []string{"PATH=" + bin}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != c.code || !strings.Contains(stderr.String(), c.stderr) {
				t.Errorf("check-static %s: exit %d, stderr %q; want exit %d and %q", c.file, code, stderr.String(), c.code, c.stderr)
			}
			if c.code != 0 && !strings.Contains(stderr.String(), c.file) {
				t.Errorf("check-static %s: stderr %q does not name the file", c.file, stderr.String())
			}
		})
	}
}

// TestMakeStaticRefusesDynamicHelper: `make static` with a dynamically
// linked MQGATE_ZENOH_HELPER fails before it touches the image's folder.
func TestMakeStaticRefusesDynamicHelper(t *testing.T) {
	mk := testenv.Program(t, "make", "install it with: apt-get install make")
	out := t.TempDir()
	keep := filepath.Join(out, "image", "bin", "kept")
	if err := os.MkdirAll(filepath.Dir(keep), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keep, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	helper := elfProgram(t, "dynamic", emX86_64, ptInterp, ptLoad)
	cmd := exec.Command(mk, "-C", "..", "static", "BIN="+out, "MQGATE_ZENOH_HELPER="+helper)
	b, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(b), "dynamically linked") {
		t.Errorf("make static with a dynamic helper: %v, want a failure saying it is dynamically linked:\n%s", err, b)
	}
	if strings.Contains(string(b), "cargo") {
		t.Errorf("make static with MQGATE_ZENOH_HELPER ran cargo:\n%s", b)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("make static removed the image's folder before refusing: %v", err)
	}
}
