package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/clapper-dev/clapper/film"
	"github.com/clapper-dev/clapper/internal/testenv"
	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
	"github.com/urfave/cli/v2"
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
		// Global flags before the command are left where they are.
		{"clapper --help run demo.yaml -o out", "clapper --help run -o out demo.yaml"},
		{"clapper -v validate a.yaml -e X=1", "clapper -v validate -e X=1 a.yaml"},
		// A value holding "=" is one value; so is a flag=value.
		{"clapper run demo.yaml -e A=b=c", "clapper run -e A=b=c demo.yaml"},
		{"clapper run demo.yaml -e=A=b=c -q", "clapper run -e=A=b=c -q demo.yaml"},
		// A boolean with a value takes nothing after it.
		{"clapper run demo.yaml --quiet=false x", "clapper run --quiet=false demo.yaml x"},
		{"clapper run demo.yaml --no-video -o out", "clapper run --no-video -o out demo.yaml"},
		// A value that starts with "-" is still the flag's value.
		{"clapper run demo.yaml -o -out-", "clapper run -o -out- demo.yaml"},
		{"clapper run demo.yaml -e -X=1 --junit -r.xml", "clapper run -e -X=1 --junit -r.xml demo.yaml"},
		{"clapper render take --fps -5", "clapper render --fps -5 take"},
		// "-" alone is a positional (standard input).
		{"clapper validate - -e A=1", "clapper validate -e A=1 -"},
	}
	for _, c := range cases {
		args, err := hoistFlags(app, strings.Fields(c.in))
		if got := strings.Join(args, " "); err != nil || got != c.want {
			t.Errorf("%q:\n got  %q, %v\n want %q", c.in, got, err, c.want)
		}
	}
	// A trailing flag that lacks its value would take a positional as its
	// value once moved in front: a usage error instead.
	for _, in := range []string{"clapper run demo.yaml -o", "clapper validate a.yaml -e", "clapper render take --fps"} {
		if args, err := hoistFlags(app, strings.Fields(in)); exitCode(t.Context(), err) != exitUsage || !strings.Contains(fmt.Sprint(err), "needs a value") {
			t.Errorf("%q: %q, %v; want a usage error", in, args, err)
		}
	}
}

func TestParseEnv(t *testing.T) {
	env, err := parseEnv([]string{"A=b=c", "EMPTY=", "X=-1"})
	if err != nil || !reflect.DeepEqual(env, map[string]string{"A": "b=c", "EMPTY": "", "X": "-1"}) {
		t.Errorf("parseEnv = %v, %v", env, err)
	}
	for _, bad := range []string{"NOEQUALS", "=value", ""} {
		if _, err := parseEnv([]string{bad}); exitCode(t.Context(), err) != exitUsage || !strings.Contains(fmt.Sprint(err), "KEY=VALUE") {
			t.Errorf("parseEnv(%q): %v, want a usage error saying KEY=VALUE", bad, err)
		}
	}
}

func TestExitCodes(t *testing.T) {
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	bySignal := func(sig syscall.Signal) context.Context {
		ctx, cancel := context.WithCancelCause(t.Context())
		cancel(&signalled{sig})
		return ctx
	}
	failed := &exitError{Code: exitFailed, Err: os.ErrNotExist}
	cases := []struct {
		name string
		ctx  context.Context
		err  error
		want int
	}{
		{"success", t.Context(), nil, 0},
		{"success after a signal", bySignal(syscall.SIGTERM), nil, 0},
		{"usage", t.Context(), usageErr("x"), 2},
		{"usage, wrapped", t.Context(), fmt.Errorf("run: %w", usageErr("x")), 2},
		{"failed", t.Context(), failed, 1},
		{"any other error", t.Context(), os.ErrClosed, 1},
		// No signal, no 130: a cancellation inside the run is a failure.
		{"cancelled", t.Context(), fmt.Errorf("step 2: %w", context.Canceled), 1},
		{"context cancelled", cancelled, os.ErrClosed, 1},
		{"deadline", t.Context(), fmt.Errorf("advance virtual time: %w", context.DeadlineExceeded), 1},
		{"cancelled, with an exit code", t.Context(), &exitError{Code: exitUsage, Err: context.Canceled}, 2},
		{"SIGINT", bySignal(syscall.SIGINT), fmt.Errorf("step 1: %w", context.Canceled), 130},
		{"SIGTERM", bySignal(syscall.SIGTERM), fmt.Errorf("step 1: %w", context.Canceled), 143},
		{"SIGTERM, whatever the error", bySignal(syscall.SIGTERM), failed, 143},
	}
	for _, c := range cases {
		if got := exitCode(c.ctx, c.err); got != c.want {
			t.Errorf("%s: exit %d, want %d", c.name, got, c.want)
		}
	}
	if exitInterrupted != 130 || exitTerminated != 143 {
		t.Errorf("signal exit codes %d, %d: want 130 and 143 as shells report", exitInterrupted, exitTerminated)
	}
}

// The app is built with the commands docs/commands.md lists, and maps its
// own usage errors (an unknown flag) to exit 2.
func TestApp(t *testing.T) {
	app := newApp()
	readme, err := os.ReadFile("../../docs/commands.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"run", "validate", "schema", "inspect", "render", "bench", "doctor", "new"} {
		if app.Command(name) == nil {
			t.Errorf("no %s command", name)
		}
	}
	// Every command is in the table of commands.
	for _, c := range app.Commands {
		if !strings.Contains(string(readme), "| `clapper "+c.Name+" ") && !strings.Contains(string(readme), "| `clapper "+c.Name+"` |") {
			t.Errorf("docs/commands.md does not list %s", c.Name)
		}
	}
	app.Writer, app.ErrWriter = io.Discard, io.Discard
	err = app.RunContext(t.Context(), []string{"clapper", "inspect", "--no-such-flag", "x"})
	if exitCode(t.Context(), err) != exitUsage {
		t.Errorf("unknown flag: %v (exit %d), want a usage error", err, exitCode(t.Context(), err))
	}
}

// Every flag's help line states its default once: a usage that names a
// default beside the one the flag shows told the reader two things.
func TestHelpStatesOneDefault(t *testing.T) {
	var walk func(path string, cmds []*cli.Command)
	walk = func(path string, cmds []*cli.Command) {
		for _, c := range cmds {
			for _, f := range c.Flags {
				if line := f.String(); strings.Count(line, "default:") > 1 {
					t.Errorf("%s %s: %s", path, c.Name, line)
				}
			}
			walk(path+" "+c.Name, c.Subcommands)
		}
	}
	walk("clapper", newApp().Commands)
}

// clapper render refuses a --fps, --crf or --size out of range (a zero
// or negative one it used to ignore) before it reads the take, with the
// words a script's output section gets for the same value.
func TestRenderRefusesFlagsOutOfRange(t *testing.T) {
	for _, c := range [][]string{{"--crf", "0", "use 1 to 51"}, {"--crf", "-3", "use 1 to 51"}, {"--fps", "0", "use 1 to 120"}, {"--fps", "121", "use 1 to 120"},
		{"--crf", "52", "use 1 to 51"}, {"--preset", "nope", "use docs, social, readme"},
		{"--size", "1921x1080", "must be even"}, {"--size", "8194x1080", "between 16 and 8192"}, {"--size", "big", "write WIDTHxHEIGHT"}} {
		_, stderr, code := runCLI(t, "render", filepath.Join(t.TempDir(), "take"), c[0], c[1])
		if code != exitUsage || !strings.Contains(stderr, c[0]) || !strings.Contains(stderr, c[1]) || !strings.Contains(stderr, c[2]) {
			t.Errorf("render %s %s: exit %d, %q", c[0], c[1], code, stderr)
		}
	}
}

// An argument that is no command is a usage error (exit 2), naming it.
func TestUnknownCommandIsAUsageError(t *testing.T) {
	_, stderr, code := runCLI(t, "frobnicate")
	if code != exitUsage || !strings.Contains(stderr, `no command "frobnicate"`) {
		t.Errorf("exit %d, %q", code, stderr)
	}
}

// validate masks a secret in a render option's error, and checks a
// handoff script as run --headed would run it when told so.
func TestValidateMasksAndTakesHeaded(t *testing.T) {
	dir := t.TempDir()
	sec := filepath.Join(dir, "sec.yaml")
	os.WriteFile(sec, []byte("secrets: [TOKEN]\noutput: {captions: \"${TOKEN}\"}\nsteps:\n  - goto: about:blank\n"), 0o644)
	_, stderr, code := runCLIEnv(t, []string{"TOKEN=hunter2-supersecret"}, "validate", sec)
	if code != exitUsage || strings.Contains(stderr, "hunter2") || !strings.Contains(stderr, sec+":2:20: output.captions must be burn, vtt, both or none, not \"•••\"") {
		t.Errorf("a secret in an output option: exit %d, %q", code, stderr)
	}
	ho := filepath.Join(dir, "handoff.yaml")
	os.WriteFile(ho, []byte("steps:\n  - goto: about:blank\n  - handoff: {until: {url: \"*/dashboard\"}, message: sign in}\n"), 0o644)
	if _, stderr, code := runCLI(t, "validate", ho); code != exitUsage || !strings.Contains(stderr, "--headed") {
		t.Errorf("a handoff, headless: exit %d, %q", code, stderr)
	}
	if out, stderr, code := runCLI(t, "validate", ho, "--headed"); code != 0 || !strings.Contains(out, "ok") {
		t.Errorf("a handoff, --headed: exit %d, %q %q", code, out, stderr)
	}
}

// --render-while-capturing is on unless given false, in clapper run and in
// bench run alike.
func TestRenderWhileCapturingFlag(t *testing.T) {
	for _, cmd := range [][]string{{"run"}, {"bench", "run"}} {
		for _, c := range []struct {
			args []string
			want string
			on   bool
		}{
			{nil, "", true},
			{[]string{"--render-while-capturing"}, "on", true},
			{[]string{"--render-while-capturing=true"}, "on", true},
			{[]string{"--render-while-capturing=false"}, "off", false},
		} {
			app := newApp()
			var got string
			sub := app.Command(cmd[0])
			for _, name := range cmd[1:] {
				sub = sub.Command(name)
			}
			sub.Action = func(ctx *cli.Context) error { got = onOff(ctx, "render-while-capturing"); return nil }
			args := append(append([]string{"clapper"}, cmd...), c.args...)
			if err := app.RunContext(t.Context(), args); err != nil {
				t.Fatalf("%v: %v", args, err)
			}
			if got != c.want || film.RenderEarly(got) != c.on {
				t.Errorf("%v: %q (render early %v), want %q (%v)", args, got, film.RenderEarly(got), c.want, c.on)
			}
		}
	}
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
	// validate names the same errors and exits 2 too, as the README says
	// of a script error; one bad script among good ones is enough.
	stdout, stderr, code := runCLI(t, "validate", "../../samples/quickstart.yaml", path)
	if code != exitUsage || !strings.Contains(stderr, path+":4:5: unknown step") || !strings.Contains(stdout, "quickstart.yaml: ok") {
		t.Errorf("validate: exit %d, want 2\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	stdout, stderr, code = runCLI(t, "validate", "../../samples/quickstart.yaml", "../../samples/qa-check.yaml", "../../samples/tour.yaml")
	if code != 0 || strings.Count(stdout, ": ok\n") != 3 {
		t.Errorf("validate samples: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
}

// A bad -e is a usage error (exit 2) for run and validate, before anything
// launches; a value holding "=" or starting with "-" reaches the script.
func TestEnvFlag(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "demo.yaml")
	os.WriteFile(path, []byte("name: demo\nsteps:\n  - goto: \"about:blank#${A}\"\n"), 0o644)
	for _, args := range [][]string{
		{"run", path, "-o", filepath.Join(dir, "out"), "-e", "NOEQUALS"},
		{"validate", path, "-e", "=x"},
	} {
		_, stderr, code := runCLI(t, args...)
		if code != exitUsage || !strings.Contains(stderr, "use KEY=VALUE") {
			t.Errorf("%v: exit %d, stderr %q; want 2 saying KEY=VALUE", args, code, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); !os.IsNotExist(err) {
		t.Error("output folder created for a bad -e")
	}
	// Without A the script does not validate: so a passing validate shows
	// that -e reached it, whatever its value holds.
	if _, _, code := runCLI(t, "validate", path); code != exitUsage {
		t.Fatalf("validate without A: exit %d, want 2 (the test relies on it)", code)
	}
	for _, v := range []string{"A=b=c", "A=-x", "A="} {
		if _, stderr, code := runCLI(t, "validate", path, "-e", v); code != 0 {
			t.Errorf("-e %s: exit %d: %s", v, code, stderr)
		}
	}
	// A trailing -e takes nothing: it is a usage error, not the script.
	if _, stderr, code := runCLI(t, "validate", path, "-e"); code != exitUsage || !strings.Contains(stderr, "flag -e needs a value") {
		t.Errorf("-e without a value: exit %d: %s", code, stderr)
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

// TestReadmeCommands keeps the README's commands true: they are the make
// targets that set up, check the machine, run the demo and run the tests;
// setup installs the Debian package list, and .ci/run installs it too,
// runs the doctor, then the test command.
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
	if want := []string{"make setup", "make doctor", "make demo", "make test"}; !reflect.DeepEqual(cmds, want) {
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
		if c == "make setup" && !strings.Contains(string(out), ".ci/install-packages") {
			t.Errorf("make setup does not install .ci/debian-packages:\n%s", out)
		}
		if c == "make doctor" && !strings.Contains(string(out), "bin/clapper doctor") {
			t.Errorf("make doctor does not run the doctor:\n%s", out)
		}
	}
	ci, err := os.ReadFile("../../.ci/run")
	if err != nil || !strings.Contains(string(ci), "\n.ci/install-packages make git\n") || !strings.Contains(string(ci), "\nmake doctor\nmake test\n") {
		t.Errorf(".ci/run does not install the packages, then call `make doctor` and `make test`: %v", err)
	}
}

func TestBadOutputOptionsRefusedBeforeLaunch(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "demo.yaml")
	os.WriteFile(path, []byte("name: demo\nsteps:\n  - goto: about:blank\noutput:\n  cursor: {smoothing: wobbly}\n"), 0o644)
	_, stderr, code := runCLI(t, "validate", path)
	if code != exitUsage || !strings.Contains(stderr, path+`:5:23: output.cursor.smoothing must be raw, ease or spring, not "wobbly"`) || !strings.Contains(stderr, "\n                          ^") {
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

// A suite's flags that no suite runs with are usage errors (exit 2), said
// before any script is loaded, each naming the flag and what to give.
func TestSuiteFlagsRefused(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--workers", "0"}, "--workers 0: give 1 or more"},
		{[]string{"--retries", "-1"}, "--retries -1: give 0 or more"},
		{[]string{"--balance", "out/suite.json"}, "give --shard too"},
		{[]string{"--keep", "passed"}, `--keep "passed": give all`},
		{[]string{"--shard", "4/3"}, "4/3"},
		{[]string{"--view"}, "--view is for one script"},
	} {
		_, stderr, code := runCLI(t, append([]string{"run", "../../samples/"}, c.args...)...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("run samples/ %v: exit %d, %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}
