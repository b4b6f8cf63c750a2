package testenv

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clapper-dev/clapper/internal/procfs"
	"github.com/clapper-dev/clapper/session"
)

// helperEnv, set, makes this test binary run Main around the helper it
// names instead of its tests: how the tests below watch Main at work.
const helperEnv = "TESTENV_HELPER"

func TestMain(m *testing.M) {
	if name := os.Getenv(helperEnv); name != "" {
		h, ok := helpers[name]
		if !ok {
			fmt.Fprintf(os.Stderr, "no helper %q\n", name)
			os.Exit(3)
		}
		Main(h)
	}
	os.Exit(m.Run())
}

// helper stands in for a package's tests under Main.
type helper func() int

func (h helper) Run() int { return h() }

// helpers print "ran" when Main runs them, then tidy up or leave something
// behind in the private folder.
var helpers = map[string]helper{
	"clean": func() int {
		fmt.Println("ran")
		d, err := os.MkdirTemp("", "clapper-profile-")
		if err != nil {
			return 1
		}
		os.RemoveAll(d)
		return 0
	},
	"leave-profile": func() int {
		fmt.Println("ran")
		if _, err := os.MkdirTemp("", "clapper-profile-"); err != nil {
			return 1
		}
		return 0
	},
	"leave-chromium-tmp": func() int {
		fmt.Println("ran")
		if _, err := os.MkdirTemp("", "org.chromium.Chromium."); err != nil {
			return 1
		}
		return 0
	},
	"leave-process": func() int {
		fmt.Println("ran")
		// A shell whose command line names the private folder, left running.
		cmd := exec.Command("sh", "-c", "sleep 60; :", filepath.Join(os.TempDir(), "x"))
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			return 1
		}
		return 0
	},
}

func TestRequired(t *testing.T) {
	for _, c := range []struct {
		v       string
		want    bool
		wantErr bool
	}{
		{"", false, false}, {"1", true, false},
		{"0", false, true}, {"true", false, true}, {"yes", false, true}, {" 1", false, true}, {"2", false, true},
	} {
		got, err := required(c.v)
		if got != c.want || (err != nil) != c.wantErr {
			t.Errorf("required(%q) = %v, %v; want %v, error %v", c.v, got, err, c.want, c.wantErr)
		}
		if err != nil && (!strings.Contains(err.Error(), RequireEnv) || !strings.Contains(err.Error(), strconv.Quote(c.v))) {
			t.Errorf("required(%q): error %q does not name the variable and its value", c.v, err)
		}
	}
}

// recorder is a testing.TB that records how a helper ended the test.
type recorder struct {
	testing.TB
	failed, skipped bool
	msg             string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatal(args ...any) {
	r.failed, r.msg = true, fmt.Sprint(args...)
	runtime.Goexit()
}
func (r *recorder) Fatalf(f string, args ...any) { r.Fatal(fmt.Sprintf(f, args...)) }
func (r *recorder) Skipf(f string, args ...any) {
	r.skipped, r.msg = true, fmt.Sprintf(f, args...)
	runtime.Goexit()
}

// need runs Need as a test would and says how it ended.
func need(t *testing.T, bins ...string) *recorder {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() { // owned by need: ends when Need returns or ends the test
		defer close(done)
		Need(r, bins...)
	}()
	<-done
	return r
}

// Need skips on a missing binary, fails on one when the integration tests
// are required, fails on a value of the variable other than 1, and finds
// Chromium under any of the names clapper accepts.
func TestNeed(t *testing.T) {
	bin := t.TempDir()
	for _, name := range append([]string{"ffmpeg"}, Browsers...) {
		os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"), 0o755)
	}
	t.Setenv("PATH", bin)
	for _, v := range []string{"", "1"} {
		t.Setenv(RequireEnv, v)
		if r := need(t, "ffmpeg", "chromium"); r.failed || r.skipped {
			t.Errorf("%s=%q, binaries present: failed %v skipped %v: %s", RequireEnv, v, r.failed, r.skipped, r.msg)
		}
	}
	t.Setenv(RequireEnv, "")
	if r := need(t, "ffmpeg", "no-such-tool"); !r.skipped || r.failed || !strings.Contains(r.msg, "no-such-tool") {
		t.Errorf("missing binary, not required: %+v", r)
	}
	t.Setenv(RequireEnv, "1")
	if r := need(t, "no-such-tool"); !r.failed || !strings.Contains(r.msg, "no-such-tool is required") {
		t.Errorf("missing binary, required: %+v", r)
	}
	t.Setenv(RequireEnv, "true")
	if r := need(t, "ffmpeg"); !r.failed || !strings.Contains(r.msg, `"true"`) {
		t.Errorf("%s=true: %+v, want a failure naming the value", RequireEnv, r)
	}
	// Each browser name alone is enough for "chromium".
	t.Setenv(RequireEnv, "1")
	for _, b := range Browsers {
		one := t.TempDir()
		os.WriteFile(filepath.Join(one, b), []byte("#!/bin/sh\n"), 0o755)
		t.Setenv("PATH", one)
		if r := need(t, "chromium"); r.failed || r.skipped {
			t.Errorf("only %s on PATH: %s", b, r.msg)
		}
	}
	t.Setenv("PATH", t.TempDir())
	if r := need(t, "chromium"); !r.failed || !strings.Contains(r.msg, "google-chrome-stable") {
		t.Errorf("no browser on PATH: %+v, want a failure naming the names tried", r)
	}
}

// Browsers is session.FindChromium's list of candidates, read from its
// source (the list is unexported, and session itself cannot use this
// package's list: its tests import testenv), and FindChromium finds
// Chromium under each of those names alone.
func TestBrowsersMirrorSession(t *testing.T) {
	const src = "../../session/chromium.go"
	f, err := parser.ParseFile(token.NewFileSet(), src, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || vs.Names[0].Name != "candidates" || len(vs.Values) != 1 {
			return true
		}
		found = true
		lit, ok := vs.Values[0].(*ast.CompositeLit)
		if !ok {
			t.Fatalf("%s: candidates is not a literal list", src)
		}
		for _, e := range lit.Elts {
			bl, ok := e.(*ast.BasicLit)
			if !ok || bl.Kind != token.STRING {
				t.Fatalf("%s: candidates holds %T, not a string literal", src, e)
			}
			s, _ := strconv.Unquote(bl.Value)
			names = append(names, s)
		}
		return false
	})
	if !found {
		t.Fatalf("%s declares no candidates: update this test and Browsers to where session lists the names it looks for", src)
	}
	if !slices.Equal(names, Browsers) {
		t.Errorf("session looks for %q, testenv.Browsers is %q", names, Browsers)
	}
	for _, b := range Browsers {
		one := t.TempDir()
		want := filepath.Join(one, b)
		os.WriteFile(want, []byte("#!/bin/sh\n"), 0o755)
		t.Setenv("PATH", one)
		if got, err := session.FindChromium(""); err != nil || got != want {
			t.Errorf("only %s on PATH: FindChromium = %q, %v", b, got, err)
		}
	}
}

// runHelper runs this test binary again as Main around the named helper,
// with env added, and returns its exit code and output.
func runHelper(t *testing.T, name string, env ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), append([]string{helperEnv + "=" + name, RequireEnv + "="}, env...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), out.String()
}

// Main passes a clean run, fails one that leaves a profile or a process in
// its private folder, and fails before running anything when that folder
// cannot be made or the requirement variable is misspelt.
func TestMainLeakChecks(t *testing.T) {
	base := t.TempDir()
	t.Cleanup(func() { killNaming(t, base) })
	tmp := "TMPDIR=" + base
	if code, out := runHelper(t, "clean", tmp); code != 0 || out != "ran\n" {
		t.Errorf("clean run: exit %d\n%s", code, out)
	}
	if code, out := runHelper(t, "leave-profile", tmp); code != 1 || !strings.Contains(out, "leak: left behind: "+base+"/clapper-test-") {
		t.Errorf("profile left: exit %d\n%s", code, out)
	}
	if code, out := runHelper(t, "leave-chromium-tmp", tmp); code != 1 || !strings.Contains(out, "leak: left behind: "+base+"/clapper-test-") || !strings.Contains(out, "/org.chromium.Chromium.") {
		t.Errorf("Chromium temporary folder left: exit %d\n%s", code, out)
	}
	if code, out := runHelper(t, "leave-process", tmp); code != 1 || !strings.Contains(out, "leak: process left behind: ") {
		t.Errorf("process left: exit %d\n%s", code, out)
	}
	// A TMPDIR that is a file: no private folder can be made in it, and
	// nothing runs unchecked.
	file := filepath.Join(base, "a-file")
	os.WriteFile(file, nil, 0o644)
	if code, out := runHelper(t, "clean", "TMPDIR="+file); code == 0 || !strings.Contains(out, "cannot make the private temporary folder") || strings.Contains(out, "ran") {
		t.Errorf("no private folder: exit %d\n%s", code, out)
	}
	if code, out := runHelper(t, "clean", tmp, RequireEnv+"=yes"); code == 0 || !strings.Contains(out, RequireEnv+`="yes"`) || strings.Contains(out, "ran") {
		t.Errorf("%s=yes: exit %d\n%s", RequireEnv, code, out)
	}
	if left, _ := filepath.Glob(filepath.Join(base, "clapper-test-*")); len(left) > 0 {
		t.Errorf("private folders not removed: %v", left)
	}
}

// killNaming kills the processes left running whose command line names s.
func killNaming(t *testing.T, s string) {
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		left := 0
		for _, p := range procfs.List() {
			if !p.Zombie() && strings.Contains(p.Cmdline, s) {
				left++
				syscall.Kill(-p.Pgid, syscall.SIGKILL)
			}
		}
		if left == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("processes naming %s survive SIGKILL", s)
}
