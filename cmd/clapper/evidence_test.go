package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clapper-dev/clapper/internal/testenv"
	"github.com/clapper-dev/clapper/timeline"
)

// keptTake is the take the timeline package keeps in the current format.
const keptTake = "../../timeline/testdata/v2"

// copyKept copies the kept take into a fresh folder named take.
func copyKept(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run", "take")
	if err := os.CopyFS(dir, os.DirFS(keptTake)); err != nil {
		t.Fatal(err)
	}
	return dir
}

// verify, pack, unpack, inspect and view as a user runs them: a take goes
// into a .clap, every command reads the .clap as it reads the folder, and
// a corrupted take fails verify with exit 1 naming the file.
func TestEvidenceCommands(t *testing.T) {
	dir := copyKept(t)
	stdout, stderr, code := runCLI(t, "verify", dir)
	if code != 0 || !strings.Contains(stdout, "ok — 17 files match the manifest") {
		t.Fatalf("verify: code %d\n%s%s", code, stdout, stderr)
	}
	clap := filepath.Join(t.TempDir(), "evidence.clap")
	if stdout, stderr, code = runCLI(t, "pack", dir, "-o", clap); code != 0 {
		t.Fatalf("pack: code %d\n%s%s", code, stdout, stderr)
	}
	if stdout, stderr, code = runCLI(t, "verify", clap); code != 0 || !strings.Contains(stdout, "ok") {
		t.Fatalf("verify .clap: code %d\n%s%s", code, stdout, stderr)
	}
	if stdout, stderr, code = runCLI(t, "inspect", "--verify", clap); code != 0 || !strings.Contains(stdout, "hostile — failed") {
		t.Fatalf("inspect .clap: code %d\n%s%s", code, stdout, stderr)
	}
	report := filepath.Join(t.TempDir(), "r.html")
	if stdout, stderr, code = runCLI(t, "view", clap, "-o", report); code != 0 || !strings.Contains(stdout, "12 frames embedded") {
		t.Fatalf("view .clap: code %d\n%s%s", code, stdout, stderr)
	}
	if b, err := os.ReadFile(report); err != nil || !strings.Contains(string(b), "Content-Security-Policy") || strings.Contains(string(b), "<img src=x") {
		t.Errorf("report: %v, or the hostile title is not escaped", err)
	}
	un := filepath.Join(t.TempDir(), "un")
	if stdout, stderr, code = runCLI(t, "unpack", clap, "-o", un); code != 0 {
		t.Fatalf("unpack: code %d\n%s%s", code, stdout, stderr)
	}
	if v := timeline.Verify(un); !v.OK() {
		t.Error(v.Err())
	}
	// An altered frame fails verify and inspect --verify with exit 1.
	os.WriteFile(filepath.Join(dir, "frames", "000002.jpg"), []byte("not the frame"), 0o644)
	for _, args := range [][]string{{"verify", dir}, {"inspect", "--verify", dir}} {
		_, stderr, code = runCLI(t, args...)
		if code != 1 || !strings.Contains(stderr, "frames/000002.jpg: altered") {
			t.Errorf("%v: code %d\n%s", args, code, stderr)
		}
	}
	// Every command that reads the take refuses it too, naming the
	// problem, and view writes no report of it.
	altered := filepath.Join(t.TempDir(), "altered.html")
	for _, args := range [][]string{{"inspect", dir}, {"render", dir}, {"view", dir, "-o", altered}} {
		_, stderr, code = runCLI(t, args...)
		if code != 1 || !strings.Contains(stderr, "was not opened") || !strings.Contains(stderr, "frames/000002.jpg: altered") {
			t.Errorf("%v of an altered take: code %d\n%s", args, code, stderr)
		}
	}
	if _, err := os.Stat(altered); !os.IsNotExist(err) {
		t.Errorf("view wrote a report of an altered take: %v", err)
	}
	// A take older than manifests opens with a warning.
	os.Remove(filepath.Join(dir, timeline.ManifestFile))
	if b, err := os.ReadFile(filepath.Join(keptTake, "frames", "000002.jpg")); err != nil || os.WriteFile(filepath.Join(dir, "frames", "000002.jpg"), b, 0o644) != nil {
		t.Fatalf("restore the frame: %v", err)
	}
	if _, stderr, code = runCLI(t, "inspect", dir); code != 0 || !strings.Contains(stderr, "warning: ") || !strings.Contains(stderr, "no manifest.json") {
		t.Errorf("inspect without a manifest: code %d\n%s", code, stderr)
	}
	if _, stderr, code = runCLI(t, "view", dir, "-o", altered); code != 0 || !strings.Contains(stderr, "no manifest.json") {
		t.Errorf("view without a manifest: code %d\n%s", code, stderr)
	}
	// Without a manifest, view still refuses a take whose frame index
	// does not match its frames.
	os.WriteFile(filepath.Join(dir, "frames", "999999.jpg"), []byte("x"), 0o644)
	if _, stderr, code = runCLI(t, "view", dir, "-o", altered+"2"); code != 1 || !strings.Contains(stderr, "frames/999999.jpg") {
		t.Errorf("view of a broken take without a manifest: code %d\n%s", code, stderr)
	}
}

// unpack without -o derives the folder from the bundle's name; a name that
// is not a bundle's, however short, is a usage error, not a crash.
func TestUnpackNeedsABundleName(t *testing.T) {
	for _, arg := range []string{"x", "", ".clap", "take.tar"} {
		_, stderr, code := runCLI(t, "unpack", arg)
		if code == 0 || strings.Contains(stderr, "panic") || !strings.Contains(stderr, "pass -o DIR") {
			t.Errorf("unpack %q: code %d\n%s", arg, code, stderr)
		}
	}
}

func TestSchemaTake(t *testing.T) {
	stdout, _, code := runCLI(t, "schema", "--take")
	var m map[string]any
	if code != 0 || json.Unmarshal([]byte(stdout), &m) != nil || m["$id"] != timeline.SchemaID {
		t.Errorf("schema --take: code %d, %.200s", code, stdout)
	}
}

func TestDefaultReport(t *testing.T) {
	for in, want := range map[string]string{
		"out/qa-check/take": "out/qa-check/report.html", "out/qa-check/take/": "out/qa-check/report.html",
		"x.clap": "x.html", "dir/y.CLAP": "dir/y.html", "mytake": "mytake.html",
	} {
		if got := defaultReport(in); got != want {
			t.Errorf("defaultReport(%q) = %q, want %q", in, got, want)
		}
	}
}

// After a failing QA run (the greeted address broken through a variable),
// the run names its take and the view command, --view writes the report,
// the take verifies, and its .clap opens in view and verify.
func TestFailingRunLeavesEvidence(t *testing.T) {
	t.Parallel() // its own browser, output folder and take; a live run mostly waits out its pauses
	testenv.Need(t, "chromium")
	out := filepath.Join(t.TempDir(), "qa")
	args := append([]string{"run", "../../samples/qa-check.yaml", "-o", out, "--no-video", "-q", "-e", "WHO=someone@else.example"}, sandboxArgs()...)
	_, stderr, code := runCLI(t, args...)
	take := filepath.Join(out, "take")
	if code != 1 || !strings.Contains(stderr, "the take is in "+take+"; see the failure with: clapper view "+take+" --open") {
		t.Fatalf("run: code %d\n%s", code, stderr)
	}
	if v := timeline.Verify(take); !v.OK() || v.Manifest == nil || v.Manifest.Chromium == "" || v.Manifest.Revision == "" {
		t.Fatalf("verify: %v, manifest %+v", v.Err(), v.Manifest)
	}
	_, stderr, code = runCLI(t, append(args, "--view")...)
	if code != 1 || !strings.Contains(stderr, "its report, "+filepath.Join(out, "report.html")) {
		t.Fatalf("run --view: code %d\n%s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil || !strings.Contains(string(b), `someone@else.example`) {
		t.Errorf("the report does not name the failed expectation: %v", err)
	}
	clap := filepath.Join(out, "qa.clap")
	if _, stderr, code = runCLI(t, "pack", take); code != 0 {
		t.Fatalf("pack: %d %s", code, stderr)
	}
	for _, args := range [][]string{{"verify", clap}, {"view", clap}} {
		if stdout, stderr, code := runCLI(t, args...); code != 0 {
			t.Errorf("%v: code %d\n%s%s", args, code, stdout, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "qa.html")); err != nil {
		t.Errorf("view of the .clap wrote no report beside it: %v", err)
	}
}
