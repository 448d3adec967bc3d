package zenohhelper

import (
	"context"
	"strings"
	"testing"
	"time"
)

// shRole starts a shell script standing in for a helper role, so that
// StartWindows's reading of stdout, its wait for the ready line and its
// record of the exit are tested without the helper.
func shRole(t *testing.T, script string, onWindow func(Window)) (*Process, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return StartWindows(ctx, "/bin/sh", []string{"-c", script}, onWindow)
}

func TestStartWindowsDeliversLinesAndExit(t *testing.T) {
	var got []Window
	p, err := shRole(t, `echo 'ready role=sub zid=abc locators=tcp/127.0.0.1:7447,udp/127.0.0.1:7447'
echo 'measuring role=sub payload=16'
echo 'window role=sub sent=3 received=2 lost=1 hdr=- hdr_last=-'
echo 'window role=sub sent=5 received=5 lost=-1 hdr=- hdr_last=-'
echo 'done role=sub status=incomplete'
echo oops >&2
exit 4`, func(w Window) { got = append(got, w) })
	if err != nil {
		t.Fatal(err)
	}
	if p.Ready.Role != "sub" || p.Ready.ZID != "abc" || p.Ready.Locator("udp") != "udp/127.0.0.1:7447" {
		t.Errorf("Ready = %+v", p.Ready)
	}
	select {
	case line := <-p.Progress():
		if line != "measuring role=sub payload=16" {
			t.Errorf("progress line %q", line)
		}
	case <-time.After(10 * time.Second):
		t.Error("no progress line")
	}
	e := p.Wait()
	if e.Code != ExitIncomplete || e.Status != "incomplete" || e.Stderr != "oops" {
		t.Errorf("Exit = %+v, want code 4, status incomplete, stderr oops", e)
	}
	if len(got) != 2 || got[0].Sent != 3 || got[0].Lost != 1 || got[1].Sent != 5 || got[1].Lost != -1 {
		t.Errorf("windows = %+v, want sent 3 then 5, in order", got)
	}
}

func TestStartWindowsExitBeforeReady(t *testing.T) {
	_, err := shRole(t, `echo 'no session' >&2; exit 1`, nil)
	if err == nil || !strings.Contains(err.Error(), "exited with code 1 before it was ready: no session") {
		t.Errorf("err = %v, want the exit code and stderr", err)
	}
}

func TestStartWindowsMalformedReady(t *testing.T) {
	_, err := shRole(t, `echo 'ready role=sub'; exec sleep 30`, nil)
	if err == nil || !strings.Contains(err.Error(), "lacks role= or zid=") {
		t.Errorf("err = %v, want the ready line's error", err)
	}
}

func TestStartWindowsMalformedWindowKills(t *testing.T) {
	p, err := shRole(t, `echo 'ready role=sub zid=abc'; echo 'window role=sub sent=x'; exec sleep 30`, func(Window) {})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("a malformed window line did not end the process")
	}
	e := p.Wait()
	if e.Code != 128+9 || !strings.Contains(e.Stderr, "sent") {
		t.Errorf("Exit = %+v, want code 137 (SIGKILL) and the window line's error", e)
	}
}

func TestStartWindowsNoReadyLine(t *testing.T) {
	old := ReadyTimeout
	ReadyTimeout = 200 * time.Millisecond
	defer func() { ReadyTimeout = old }()
	_, err := shRole(t, `echo waiting >&2; exec sleep 30`, nil)
	if err == nil || !strings.Contains(err.Error(), "printed no ready line within 200ms: waiting") {
		t.Errorf("err = %v, want the timeout and stderr", err)
	}
}
