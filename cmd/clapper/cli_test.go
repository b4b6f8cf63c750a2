package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/clapper-dev/clapper/internal/testenv"
	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
)

func TestHoistFlags(t *testing.T) {
	app := newApp()
	cases := []struct{ in, want string }{
		{"clapper run demo.yaml -o out", "clapper run -o out demo.yaml"},
		{"clapper run -o out demo.yaml", "clapper run -o out demo.yaml"},
		{"clapper run demo.yaml --no-sandbox -o=out -e A=1", "clapper run --no-sandbox -o=out -e A=1 demo.yaml"},
		{"clapper run demo.yaml -q --junit r.xml", "clapper run -q --junit r.xml demo.yaml"},
		{"clapper inspect take --json", "clapper inspect --json take"},
		{"clapper validate a.yaml b.yaml -e X=1", "clapper validate -e X=1 a.yaml b.yaml"},
		{"clapper run demo.yaml -- -weird.yaml", "clapper run demo.yaml -- -weird.yaml"},
		{"clapper --help", "clapper --help"},
		{"clapper nosuch x -y", "clapper nosuch x -y"},
		{"clapper render take -o a.mp4 -o b.gif --fps 60", "clapper render -o a.mp4 -o b.gif --fps 60 take"},
		{"clapper bench capture --size 640x360 --runs 2", "clapper bench capture --size 640x360 --runs 2"},
	}
	for _, c := range cases {
		got := strings.Join(hoistFlags(app, strings.Fields(c.in)), " ")
		if got != c.want {
			t.Errorf("%q:\n got  %q\n want %q", c.in, got, c.want)
		}
	}
}

func TestExitCodes(t *testing.T) {
	if exitCode(t.Context(), nil) != 0 || exitCode(t.Context(), usageErr("x")) != 2 ||
		exitCode(t.Context(), &exitError{code: exitFailed, err: os.ErrNotExist}) != 1 || exitCode(t.Context(), os.ErrClosed) != 1 {
		t.Error("exit code mapping")
	}
	var _ *cli.App = newApp()
}

func TestSchemaFileIsCurrent(t *testing.T) {
	b, err := os.ReadFile("../../clapper.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != string(scripts.Schema()) {
		t.Error("clapper.schema.json is stale: run `make schema`")
	}
}

func TestBadScriptRefusedBeforeLaunch(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "demo.yaml")
	os.WriteFile(path, []byte("name: demo\nsteps:\n  - goto: about:blank\n  - clik: \"#save\"\n  - pause: 1.5 sec\n"), 0o644)
	before := len(testenv.Profiles())
	_, stderr, code := runCLI(t, "run", path, "-o", filepath.Join(dir, "out"), "--no-sandbox")
	if code != exitUsage {
		t.Errorf("exit %d, want 2", code)
	}
	for _, want := range []string{path + ":4:5: unknown step \"clik\"; did you mean \"click\"?", "\n        ^", path + ":5:"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if len(testenv.Profiles()) != before {
		t.Error("a browser profile was created for an invalid script")
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); !os.IsNotExist(err) {
		t.Error("output folder created for an invalid script")
	}
	_, _, code = runCLI(t, "validate", path)
	if code != exitFailed {
		t.Errorf("validate exit %d, want 1", code)
	}
	_, _, code = runCLI(t, "validate", "../../samples/quickstart.yaml", "../../samples/qa-check.yaml", "../../samples/tour.yaml")
	if code != 0 {
		t.Errorf("validate samples exit %d", code)
	}
}

func TestFailingExpectation(t *testing.T) {
	testenv.Need(t, "chromium", "ffmpeg")
	dir := t.TempDir()
	site, _ := filepath.Abs("../../samples/site")
	path := filepath.Join(dir, "qa.yaml")
	os.WriteFile(path, []byte("name: qa\nserve: "+site+"\nsteps:\n  - goto: ${serve.url}/index.html\n  - expect: {text: Goodbye}\n    timeout: 1s\n  - pause: 1s\n"), 0o644)
	out := filepath.Join(dir, "out")
	junit := filepath.Join(dir, "junit.xml")
	_, stderr, code := runCLI(t, append([]string{"run", path, "-o", out, "--junit", junit, "-q"}, sandboxArgs()...)...)
	if code != exitFailed {
		t.Fatalf("exit %d, want 1; stderr %s", code, stderr)
	}
	if !strings.Contains(stderr, path+":5:5: step 2 (expect) failed") || !strings.Contains(stderr, `expected text "Goodbye"`) {
		t.Errorf("stderr does not name the failing line: %s", stderr)
	}
	tk, err := timeline.Open(filepath.Join(out, "take"))
	if err != nil {
		t.Fatal(err)
	}
	if tk.Timeline.Outcome != "failed" || len(tk.Timeline.Steps) != 2 {
		t.Errorf("take: %s, %d steps", tk.Timeline.Outcome, len(tk.Timeline.Steps))
	}
	if _, err := os.Stat(filepath.Join(out, "qa.mp4")); err != nil {
		t.Errorf("no video up to the failure: %v", err)
	}
	x, err := os.ReadFile(junit)
	if err != nil || !strings.Contains(string(x), `failures="1"`) || !strings.Contains(string(x), `line="5"`) {
		t.Errorf("junit: %v\n%s", err, x)
	}
}

// TestReadmeCommands keeps the README's two commands true: they are the
// make targets that set up and run the demo, and run the tests, and
// .ci/run calls the test command.
func TestReadmeCommands(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var cmds []string
	in := false
	for _, l := range strings.Split(string(readme), "\n") {
		switch {
		case strings.HasPrefix(l, "```sh"):
			in = true
		case strings.HasPrefix(l, "```"):
			in = false
		case in && strings.HasPrefix(l, "make "):
			cmds = append(cmds, l)
		}
	}
	if want := []string{"make demo", "make test"}; !reflect.DeepEqual(cmds, want) {
		t.Fatalf("README commands %q, want %q", cmds, want)
	}
	for _, c := range cmds {
		out, err := exec.Command("make", "-C", "../..", "-n", strings.TrimPrefix(c, "make ")).CombinedOutput()
		if err != nil {
			t.Errorf("%s: %v\n%s", c, err, out)
		}
		if c == "make demo" && !strings.Contains(string(out), "run samples/quickstart.yaml") {
			t.Errorf("make demo does not run the quickstart:\n%s", out)
		}
	}
	ci, err := os.ReadFile("../../.ci/run")
	if err != nil || !strings.Contains(string(ci), "\nmake test\n") {
		t.Errorf(".ci/run does not call `make test`: %v", err)
	}
}

func TestBadOutputOptionsRefusedBeforeLaunch(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "demo.yaml")
	os.WriteFile(path, []byte("name: demo\nsteps:\n  - goto: about:blank\noutput:\n  cursor: {smoothing: wobbly}\n"), 0o644)
	_, stderr, code := runCLI(t, "validate", path)
	if code != exitFailed || !strings.Contains(stderr, path+`:5:3: output.cursor.smoothing: "wobbly"`) || !strings.Contains(stderr, "\n      ^") {
		t.Errorf("validate: exit %d, stderr %q", code, stderr)
	}
	_, stderr, code = runCLI(t, "run", path, "-o", filepath.Join(dir, "out"), "--no-sandbox")
	if code != exitUsage || !strings.Contains(stderr, "wobbly") {
		t.Errorf("run: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); !os.IsNotExist(err) {
		t.Error("output folder created for invalid output options")
	}
}

func TestRenderRefusesBadSettings(t *testing.T) {
	for _, args := range [][]string{
		{"render", t.TempDir(), "--x264-preset", "nosuch"},
		{"render", t.TempDir(), "--size", "12by7"},
		{"render", t.TempDir(), "--preset", "cinema"},
	} {
		_, stderr, code := runCLI(t, args...)
		if code != exitUsage {
			t.Errorf("%v: exit %d (%s), want 2", args[2:], code, stderr)
		}
	}
	// A folder that holds no take is refused with what to pass instead.
	_, stderr, code := runCLI(t, "render", t.TempDir())
	if code == 0 || !strings.Contains(stderr, "not a take") {
		t.Errorf("render of an empty folder: exit %d, %s", code, stderr)
	}
}
