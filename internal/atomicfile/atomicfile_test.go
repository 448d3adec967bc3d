package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestWriteCreatesFileAndParents(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "out.csv")
	if err := WriteBytes(path, []byte("x,y\n")); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "x,y\n" {
		t.Fatalf("got %q, %v", got, err)
	}
}

func TestWriteFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.csv")
	if err := WriteBytes(path, []byte("old")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(path, func(w io.Writer) error {
		io.WriteString(w, "half a file")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	got, _ := os.ReadFile(path)
	if string(got) != "old" {
		t.Fatalf("destination changed to %q", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temporary file left behind: %v", entries)
	}
}

func TestWriteUnwritableDirectory(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteBytes(filepath.Join(blocker, "out.csv"), []byte("x")); err == nil {
		t.Fatal("writing below a regular file succeeded")
	}
}

// TestModeFollowsUmask: a new file gets 0666 less the umask, as a shell
// redirection gives it, and a file replaced keeps its permissions.
func TestModeFollowsUmask(t *testing.T) {
	dir := t.TempDir()
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	for _, c := range []struct {
		umask int
		want  os.FileMode
	}{{0o027, 0o640}, {0o002, 0o664}, {0o077, 0o600}, {0o022, 0o644}} {
		syscall.Umask(c.umask)
		path := filepath.Join(dir, fmt.Sprintf("new-%03o", c.umask), "out.csv")
		if err := WriteBytes(path, []byte("x")); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != c.want {
			t.Errorf("umask %03o: mode %v, %v; want %v", c.umask, fi.Mode().Perm(), err, c.want)
		}
		// Directories made on the way follow it too.
		if fi, err := os.Stat(filepath.Dir(path)); err != nil || fi.Mode().Perm() != c.want|0o111&^os.FileMode(c.umask) {
			t.Errorf("umask %03o: directory mode %v, %v", c.umask, fi.Mode().Perm(), err)
		}
	}
	syscall.Umask(0o022)
	path := filepath.Join(dir, "kept.csv")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteBytes(path, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("replaced file's mode %v, %v; want it kept at 0600", fi.Mode().Perm(), err)
	}
	// A mode asked for wins.
	if err := WriteMode(path, 0o640, func(w io.Writer) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("WriteMode 0640: mode %v, %v", fi.Mode().Perm(), err)
	}
}

// TestModeBeforeContent: the permissions asked for, or those of the file
// replaced, are the temporary file's before anything is written to it, so
// a key is never readable by others on its way.
func TestModeBeforeContent(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := t.TempDir()
	tempMode := func(t *testing.T, name string) os.FileMode {
		t.Helper()
		m, err := filepath.Glob(filepath.Join(dir, "."+name+".tmp*"))
		if err != nil || len(m) != 1 {
			t.Fatalf("temporary files %q, %v", m, err)
		}
		fi, err := os.Stat(m[0])
		if err != nil {
			t.Fatal(err)
		}
		return fi.Mode().Perm()
	}
	key := filepath.Join(dir, "key.pem")
	if err := WriteMode(key, 0o600, func(w io.Writer) error {
		if m := tempMode(t, "key.pem"); m != 0o600 {
			t.Errorf("WriteMode 0600: temporary file %v while written", m)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := Write(key, func(w io.Writer) error {
		if m := tempMode(t, "key.pem"); m != 0o600 {
			t.Errorf("replacing a 0600 file: temporary file %v while written", m)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestWhatIsInTheWay: when the file or its directory cannot be made, the
// error says what is in the way, in words, not "mkdir: file exists".
func TestWhatIsInTheWay(t *testing.T) {
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "file"), nil, 0o644))
	must(os.Mkdir(filepath.Join(dir, "adir"), 0o755))
	must(os.Symlink("loop2", filepath.Join(dir, "loop")))
	must(os.Symlink("loop", filepath.Join(dir, "loop2")))
	must(os.Symlink("nowhere", filepath.Join(dir, "dangling")))
	must(os.Symlink("file", filepath.Join(dir, "tofile")))
	j := func(p ...string) string { return filepath.Join(append([]string{dir}, p...)...) }
	cases := []struct{ path, want string }{
		{j("adir"), "cannot write " + j("adir") + ": it is a directory; expected a file name"},
		{j("loop", "out.csv"), "cannot create the directory for " + j("loop", "out.csv") + ": " + j("loop") + " is a symbolic link that loops (it leads back to itself); expected a directory"},
		{j("loop", "a", "b", "out.csv"), ": " + j("loop") + " is a symbolic link that loops"},
		{j("dangling", "out.csv"), ": " + j("dangling") + " is a symbolic link to nowhere, which does not exist; expected a directory"},
		{j("file", "out.csv"), "cannot create the directory for " + j("file", "out.csv") + ": " + j("file") + " is a file, not a directory"},
		{j("file", "x", "out.csv"), ": " + j("file") + " is a file, not a directory"},
		{j("tofile", "out.csv"), ": " + j("tofile") + " is a symbolic link to a file, not a directory"},
	}
	for _, c := range cases {
		err := WriteBytes(c.path, []byte("x"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("WriteBytes(%s): %v; want %q", c.path, err, c.want)
		}
		// CheckFile says the same before anything is written.
		if err := CheckFile(c.path); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckFile(%s): %v; want %q", c.path, err, c.want)
		}
	}
	for _, ok := range []string{j("adir", "out.csv"), j("new", "dirs", "out.csv")} {
		if err := CheckFile(ok); err != nil {
			t.Errorf("CheckFile(%s): %v", ok, err)
		}
	}
	if err := CheckDir(j("adir", "new")); err != nil {
		t.Error(err)
	}
	if err := CheckDir(j("loop")); err == nil || !strings.Contains(err.Error(), "cannot create the directory "+j("loop")+": "+j("loop")+" is a symbolic link that loops") {
		t.Errorf("CheckDir(loop): %v", err)
	}
	if err := CheckDir(j("file")); err == nil || !strings.Contains(err.Error(), j("file")+" is a file, not a directory") {
		t.Errorf("CheckDir(file): %v", err)
	}
	if entries, _ := os.ReadDir(j("adir")); len(entries) != 0 {
		t.Errorf("adir holds %v", entries)
	}
}

// WriteBytes writes data to path atomically: the tests' Write of fixed
// content.
func WriteBytes(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// TestWriteAllAsASet: a set one of whose files cannot be written replaces
// none of them and leaves no temporary file; a set that can replaces all,
// each with its permissions.
func TestWriteAllAsASet(t *testing.T) {
	dir := t.TempDir()
	paths := []string{filepath.Join(dir, "ca.pem"), filepath.Join(dir, "server.pem"), filepath.Join(dir, "server.key")}
	for _, p := range paths {
		if err := WriteBytes(p, []byte("old "+filepath.Base(p))); err != nil {
			t.Fatal(err)
		}
	}
	full := errors.New("no space left on device")
	set := func(failAt int) []File {
		var fs []File
		for i, p := range paths {
			fs = append(fs, File{Path: p, Perm: 0o600, Write: func(w io.Writer) error {
				if i == failAt {
					return full
				}
				_, err := fmt.Fprintf(w, "new %s", filepath.Base(p))
				return err
			}})
		}
		return fs
	}
	if err := WriteAll(set(2)); !errors.Is(err, full) {
		t.Fatalf("WriteAll with the last file failing: %v, want %v", err, full)
	}
	for _, p := range paths {
		if got, _ := os.ReadFile(p); string(got) != "old "+filepath.Base(p) {
			t.Errorf("%s after a failed set: %q, want the old content", p, got)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != len(paths) {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("after a failed set the folder holds %v, want only the %d files", names, len(paths))
	}
	if err := WriteAll(set(-1)); err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		got, _ := os.ReadFile(p)
		fi, err := os.Stat(p)
		if string(got) != "new "+filepath.Base(p) || err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s after the set: %q, mode %v (%v), want the new content, 0600", p, got, fi.Mode().Perm(), err)
		}
	}
}

// TestRefusesNonRegular: a path that is a symbolic link, a named pipe or a
// device is refused, and left as it was: a file renamed over it would take
// its place (run as root, a report written to /dev/null replaced the
// machine's /dev/null with a regular file).
func TestRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := WriteBytes(target, []byte("kept")); err != nil {
		t.Fatal(err)
	}
	link, fifo := filepath.Join(dir, "link"), filepath.Join(dir, "fifo")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{link: "it is a symbolic link to " + target, fifo: "it is a named pipe"} {
		if err := WriteBytes(path, []byte("new")); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("writing %s: %v, want %q", path, err, want)
		}
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("%s is no longer a link: %v", link, err)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("%s is no longer a named pipe: %v", fifo, err)
	}
	if b, _ := os.ReadFile(target); string(b) != "kept" {
		t.Errorf("%s: %q", target, b)
	}
	// Checked only: a write that got through would replace the machine's.
	if err := CheckFile(os.DevNull); err == nil || !strings.Contains(err.Error(), "it is a character device") {
		t.Errorf("CheckFile(%s): %v, want it refused as a device", os.DevNull, err)
	}
}

// TestWriteAllFlagAndDirectories: a failing set names the file's Flag and
// leaves none of the directories made for it; MkdirAll's remove takes away
// only the directories it made, and only while they are empty.
func TestWriteAllFlagAndDirectories(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a", "b", "out.json")
	err := WriteAll([]File{{Flag: "--json", Path: path, Write: func(w io.Writer) error { return errors.New("disk full") }}})
	if err == nil || err.Error() != "--json: cannot write "+path+": disk full" {
		t.Errorf("WriteAll = %v, want the flag, the file and the cause", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left in %s: %v", dir, entries)
	}
	remove, err := MkdirAll(filepath.Join(dir, "a", "b"), 0o777)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a", "kept"), nil, 0o666); err != nil {
		t.Fatal(err)
	}
	remove()
	if entries, _ := os.ReadDir(filepath.Join(dir, "a")); len(entries) != 1 || entries[0].Name() != "kept" {
		t.Errorf("after remove, a holds %v; want only kept", entries)
	}
}
