package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clapper-dev/clapper/internal/doctor"
	"github.com/clapper-dev/clapper/internal/testenv"
)

// doctorReport is clapper doctor --json.
type doctorReport struct {
	Version string         `json:"version"`
	OK      bool           `json:"ok"`
	Checks  []doctor.Check `json:"checks"`
}

func parseReport(t *testing.T, stdout string) (doctorReport, map[string]doctor.Check) {
	t.Helper()
	var r doctorReport
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, stdout)
	}
	by := map[string]doctor.Check{}
	for _, c := range r.Checks {
		by[c.Name] = c
	}
	return r, by
}

// noSandboxFlag ends the doctor's fix for a sandbox that cannot start.
const noSandboxFlag = "--no-sandbox (or CLAPPER_NO_SANDBOX=1, or browser: {sandbox: false} in the script)"

// doctorChecks are the checks the doctor makes, in its order.
var doctorChecks = []string{"chromium", "headless shell", "sandbox", "ffmpeg", "ffprobe", "encoders",
	"font: colour emoji", "font: Chinese and Japanese", "font: Korean", "font: Arabic", "font: Devanagari",
	"font: Arial-compatible", "font: Times-compatible", "font: Courier-compatible",
	"page faults", "/dev/shm", "temp folder", "output folder", "state folder"}

// On a machine set up as the README says (CI runs .ci/run's set-up first),
// every check passes: exit 0, in JSON and in text.
func TestDoctorAllGreen(t *testing.T) {
	testenv.Need(t, "chromium", "chromium-headless-shell", "ffmpeg", "ffprobe", "fc-list")
	stdout, stderr, code := runCLI(t, append([]string{"doctor", "--json", "-o", t.TempDir(), "--state-dir", filepath.Join(t.TempDir(), "state")}, sandboxArgs()...)...)
	r, _ := parseReport(t, stdout)
	var names []string
	for _, c := range r.Checks {
		names = append(names, c.Name)
		if !c.OK {
			t.Errorf("%s: %s; fix: %s", c.Name, c.Detail, c.Fix)
		}
	}
	v, _, _ := runCLI(t, "--version")
	if code != 0 || !r.OK || "clapper version "+r.Version+"\n" != v {
		t.Errorf("doctor --json: exit %d, ok %v, version %q; stderr %s", code, r.OK, r.Version, stderr)
	}
	if !slices.Equal(names, doctorChecks) {
		t.Errorf("checks %q\nwant %q", names, doctorChecks)
	}
	stdout, stderr, code = runCLI(t, append([]string{"doctor"}, sandboxArgs()...)...)
	if code != 0 || !strings.HasSuffix(stdout, "all 19 checks passed\n") || strings.Contains(stdout, "FAIL") {
		t.Errorf("doctor: exit %d\n%s%s", code, stdout, stderr)
	}
}

// What is missing fails its check (exit 1) with a fix, and the fix for a
// missing Chromium or ffmpeg, or for the sandbox as root, is the very line
// a run gives for the same reason.
func TestDoctorSaysWhatToDo(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	os.WriteFile(file, nil, 0o644)
	script := filepath.Join(dir, "demo.yaml")
	os.WriteFile(script, []byte("name: demo\nsteps:\n  - goto: about:blank\n"), 0o644)
	noChromium, noFFmpeg := filepath.Join(dir, "no-such-chromium"), filepath.Join(dir, "no-such-ffmpeg")

	stdout, stderr, code := runCLI(t, "doctor", "--json", "--no-sandbox", "--chromium", noChromium, "--ffmpeg", noFFmpeg, "--state-dir", filepath.Join(file, "state"))
	r, by := parseReport(t, stdout)
	if code != exitFailed || r.OK {
		t.Errorf("doctor with nothing there: exit %d, ok %v; want exit 1\n%s", code, r.OK, stderr)
	}
	for _, name := range []string{"chromium", "sandbox", "ffmpeg", "encoders", "state folder"} {
		if c := by[name]; c.OK || c.Fix == "" {
			t.Errorf("%s: %+v; want a failure with a fix", name, c)
		}
	}
	if c := by["state folder"]; !strings.Contains(c.Detail, file+" is not a directory") {
		t.Errorf("state folder under a file: %+v", c)
	}
	// The same line as the run's, for the same reason.
	_, runStderr, _ := runCLI(t, "run", script, "-o", filepath.Join(dir, "out1"), "-q", "--no-sandbox", "--chromium", noChromium)
	if want := "clapper: " + by["chromium"].Fix + "\n"; runStderr != want {
		t.Errorf("run says %q, doctor's fix is %q", runStderr, want)
	}
	fake := filepath.Join(dir, "fake-chromium")
	os.WriteFile(fake, []byte("#!/bin/sh\nexit 1\n"), 0o755)
	_, runStderr, _ = runCLI(t, "run", script, "-o", filepath.Join(dir, "out2"), "-q", "--no-sandbox", "--chromium", fake, "--ffmpeg", noFFmpeg)
	if want := "clapper: " + by["ffmpeg"].Fix + "\n"; runStderr != want {
		t.Errorf("run says %q, doctor's fix is %q", runStderr, want)
	}

	// A Chromium whose sandbox cannot start fails the check with what to
	// do and the exact flag; with the flag, it still does not start.
	nosandbox := filepath.Join(dir, "nosandbox-chromium")
	os.WriteFile(nosandbox, []byte("#!/bin/sh\nif [ \"$1\" = --version ]; then echo Chromium 150.0.1.2; exit 0; fi\n"+
		"echo '[FATAL:zygote_host_impl_linux.cc(130)] No usable sandbox! If you want to live dangerously, try --no-sandbox.' >&2\nexit 1\n"), 0o755)
	stdout, _, code, ok := asUID(t, false, "doctor", "--json", "--chromium", nosandbox)
	if ok {
		_, by := parseReport(t, stdout)
		if c := by["sandbox"]; code != exitFailed || c.OK || !strings.Contains(c.Detail, "needs unprivileged user namespaces") || !strings.HasSuffix(c.Fix, noSandboxFlag) {
			t.Errorf("no usable sandbox: exit %d, %+v", code, c)
		}
	} else if req, _ := testenv.Required(); req {
		t.Errorf("cannot run clapper as another user here: no user namespaces, and %s=1 requires this test", testenv.RequireEnv)
	}
	stdout, _, code = runCLI(t, "doctor", "--json", "--no-sandbox", "--chromium", nosandbox)
	if _, by := parseReport(t, stdout); code != exitFailed || by["sandbox"].OK || !strings.Contains(by["sandbox"].Detail, "does not start even without its sandbox: [FATAL") {
		t.Errorf("no start at all: exit %d, %+v", code, by["sandbox"])
	}

	// As root (really, or in a user namespace), without the choice.
	stdout, _, code, ok = asUID(t, true, "doctor", "--json", "--chromium", fake)
	if !ok {
		if req, _ := testenv.Required(); req {
			t.Fatalf("cannot run clapper as root here: no user namespaces, and %s=1 requires this test", testenv.RequireEnv)
		}
		t.Skip("cannot run clapper as root here: no user namespaces")
	}
	_, by = parseReport(t, stdout)
	_, runStderr, _, _ = asUID(t, true, "run", script, "-o", filepath.Join(dir, "out3"), "-q", "--chromium", fake)
	if c := by["sandbox"]; code != exitFailed || c.OK || runStderr != "clapper: "+c.Fix+"\n" || !strings.Contains(c.Fix, "--no-sandbox") {
		t.Errorf("as root: exit %d, sandbox %+v; run says %q", code, c, runStderr)
	}
	// The text report puts the fix under the failed check.
	stdout, _, _, _ = asUID(t, true, "doctor", "--chromium", fake)
	if !strings.Contains(stdout, "  FAIL  sandbox ") || !strings.Contains(stdout, "fix: "+by["sandbox"].Fix+"\n") || !strings.Contains(stdout, "checks failed: ") {
		t.Errorf("text report:\n%s", stdout)
	}
}

func TestPrintChecks(t *testing.T) {
	var b strings.Builder
	printChecks(&b, []doctor.Check{{Name: "chromium", OK: true, Detail: "Chromium 156 at /usr/bin/chromium"}, {Name: "sandbox", Detail: "running as root", Fix: "pass --no-sandbox"}, {Name: "ffmpeg", OK: true, Detail: "ffmpeg 5.1"}})
	wantText := "clapper " + version + "\n" +
		"  ok    chromium  Chromium 156 at /usr/bin/chromium\n" +
		"  FAIL  sandbox   running as root\n" +
		"                  fix: pass --no-sandbox\n" +
		"  ok    ffmpeg    ffmpeg 5.1\n" +
		"1 of 3 checks failed: sandbox\n"
	if b.String() != wantText {
		t.Errorf("report:\n%s\nwant:\n%s", b.String(), wantText)
	}
	b.Reset()
	printChecks(&b, []doctor.Check{{Name: "ffmpeg", OK: true, Detail: "ffmpeg 5.1"}})
	if !strings.HasSuffix(b.String(), "\nall 1 checks passed\n") {
		t.Errorf("report:\n%s", b.String())
	}
}
