package bench

import (
	"fmt"
	"testing"
	"time"

	"github.com/clapper-dev/clapper/internal/procfs"
	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
)

func TestBenchRunModes(t *testing.T) {
	for _, c := range []struct {
		captures []string
		settled  string
		restart  string
		want     string // the modes, or "error"
	}{
		{[]string{"live"}, "both", "on", "[live, settled by frame live, settled by screenshot]"},
		{[]string{"live"}, "frame", "on", "[live, settled by frame]"},
		{[]string{"studio"}, "both", "on", "[studio]"},
		{[]string{"live", "studio"}, "screenshot", "on", "[live, settled by screenshot studio]"},
		{[]string{"studio", "live"}, "both", "on", "[studio live, settled by frame live, settled by screenshot]"},
		{[]string{"live"}, "frame", "off", "[live, settled by frame, one screencast]"},
		{[]string{"live", "studio"}, "frame", "both", "[live, settled by frame live, settled by frame, one screencast studio]"},
		{[]string{"studio"}, "both", "both", "[studio]"},
		{[]string{"studio", "studio-screencast"}, "frame", "on", "[studio studio-screencast]"},
		{[]string{"studio-screencast", "live"}, "screenshot", "off", "[studio-screencast live, settled by screenshot, one screencast]"},
		{[]string{"live"}, "never", "on", "error"},
		{[]string{"live"}, "frame", "sometimes", "error"},
	} {
		got, err := RunModes(c.captures, c.settled, c.restart)
		s := fmt.Sprint(got)
		if err != nil {
			s = "error"
		}
		if s != c.want {
			t.Errorf("RunModes(%v, %q, %q) = %s, want %s", c.captures, c.settled, c.restart, s, c.want)
		}
	}
}

// A process already running when sampling starts counts only the CPU it
// uses after; a process that starts later with the same pid counts all of
// its own; a process seen several times counts its latest figure once.
func TestTreeCPUCountsFromTheStart(t *testing.T) {
	old := procfs.Proc{Pid: 11, Start: 5, CPU: 30 * time.Second}
	c := &treeCPU{base: map[procKey]time.Duration{{old.Pid, old.Start}: old.CPU}, seen: map[procKey]time.Duration{}}
	old.CPU = 31 * time.Second
	c.note([]procfs.Proc{old})
	old.CPU = 32 * time.Second
	c.note([]procfs.Proc{old})
	c.note([]procfs.Proc{{Pid: 11, Start: 9, CPU: 2 * time.Second}})
	var total time.Duration
	for _, d := range c.seen {
		total += d
	}
	if total != 4*time.Second {
		t.Errorf("seen %v (%v in all): want 2s for the process that was there and 2s for the later one", c.seen, total)
	}
}

// A freeze is placed by its time in the take and the step running then;
// a median run places none.
func TestFreezeWhere(t *testing.T) {
	s := timeline.Time(time.Second)
	tl := &timeline.Timeline{Start: s, Steps: []timeline.Step{
		{Index: 0, Kind: "goto", Start: s},
		{Index: 1, Kind: "pause", Start: s + timeline.FromDuration(500*time.Millisecond)},
		{Index: 2, Kind: "scroll", Start: s + timeline.FromDuration(2*time.Second)},
	}}
	for _, c := range []struct {
		at   time.Duration
		want string
	}{
		{-100 * time.Millisecond, "-0.10 s in"},
		{0, "0.00 s in, step 1 goto"},
		{1250 * time.Millisecond, "1.25 s in, step 2 pause"},
		{2 * time.Second, "2.00 s in, step 3 scroll"},
		{9 * time.Second, "9.00 s in, step 3 scroll"},
	} {
		if got := freezeWhere(tl, s+timeline.FromDuration(c.at)); got != c.want {
			t.Errorf("freezeWhere(%v) = %q, want %q", c.at, got, c.want)
		}
	}
	runs := []scenarioRun{{FreezeWhere: "1.00 s in", Restarts: 3}, {FreezeWhere: "2.00 s in", Restarts: 5}, {Restarts: 4}}
	runs[0].LongestFreezeAt, runs[1].LongestFreezeAt = 7, 9
	if m := medianScenario(runs); m.FreezeWhere != "" || m.LongestFreezeAt != 0 || m.Restarts != 4 {
		t.Errorf("median run: where %q at %v, %d restarts; want none, and 4", m.FreezeWhere, m.LongestFreezeAt, m.Restarts)
	}
}

// Late steps are counted, and the one furthest over its own time named.
func TestLateSteps(t *testing.T) {
	ms := time.Millisecond
	tl := &timeline.Timeline{Steps: []timeline.Step{
		{Index: 0, Kind: "goto"},
		{Index: 1, Kind: "click", Late: &timeline.Late{Planned: 200 * ms, Took: 600 * ms, Why: "slow"}},
		{Index: 2, Kind: "scroll", Late: &timeline.Late{Planned: 900 * ms, Took: 1970 * ms, Why: "busy"}},
		{Index: 3, Kind: "type"},
	}}
	n, where := lateSteps(tl)
	if n != 2 || where != "step 3 scroll took 1.97s for its own 0.90s (busy)" {
		t.Errorf("lateSteps = %d, %q", n, where)
	}
	if n, where := lateSteps(&timeline.Timeline{}); n != 0 || where != "" {
		t.Errorf("no steps: %d, %q", n, where)
	}
	runs := []scenarioRun{{LateWhere: "a", LateSteps: 1}, {LateWhere: "b", LateSteps: 3}, {LateSteps: 2}}
	if m := medianScenario(runs); m.LateWhere != "" || m.LateSteps != 2 {
		t.Errorf("median run: %q, %d late", m.LateWhere, m.LateSteps)
	}
}

func TestCPUPerVideoSecond(t *testing.T) {
	for _, c := range []struct {
		cpu        float64
		ticks, fps int
		want       float64
	}{
		{18, 690, 60, 18 / 11.5}, {10, 300, 30, 1}, {5, 0, 60, 0}, {5, 60, 0, 0},
	} {
		if got := cpuPerVideoSecond(c.cpu, c.ticks, c.fps); got != c.want {
			t.Errorf("cpuPerVideoSecond(%v, %d, %d) = %v, want %v", c.cpu, c.ticks, c.fps, got, c.want)
		}
	}
}

// Each process of a run is named by what it does, from its command line.
func TestProcKind(t *testing.T) {
	for _, c := range []struct {
		comm, cmdline, want string
	}{
		{"chromium", "/usr/lib/chromium/chromium --headless=new --no-sandbox --user-data-dir=/tmp/x", "browser"},
		{"headless_shell", "/usr/lib/chromium/headless_shell --remote-debugging-pipe", "browser"},
		{"chromium", "/usr/lib/chromium/chromium --type=gpu-process --headless=new", "gpu"},
		{"chromium", "/usr/lib/chromium/chromium --type=renderer --renderer-client-id=5", "renderer"},
		{"chromium", "/usr/lib/chromium/chromium --type=utility --utility-sub-type=network.mojom.NetworkService", "utility"},
		{"chromium", "/usr/lib/chromium/chromium --type=zygote --no-zygote-sandbox", "zygote"},
		{"chromium", "/usr/lib/chromium/chromium --type=broker", "other chromium"},
		{"ffmpeg", "/usr/bin/ffmpeg -v error -f rawvideo -i -", "ffmpeg"},
		{"ffmpeg-linux", "/tmp/reg/ffmpeg-1013/ffmpeg-linux -loglevel error", "ffmpeg"},
		{"node", "node /tmp/out/scenario.cjs {}", "node"},
		{"sh", "/bin/sh -c true", "other"},
		{"chromium", "", "browser"}, // a zombie keeps its name only
		{"chrome_crashpad", "/usr/lib/chromium/chrome_crashpad_handler --monitor-self", "other chromium"},
	} {
		if got := procKind(procfs.Proc{Comm: c.comm, Cmdline: c.cmdline}); got != c.want {
			t.Errorf("procKind(%q, %q) = %q, want %q", c.comm, c.cmdline, got, c.want)
		}
	}
}

// The breakdown names the hungriest first, and a median run takes each
// kind's median (a kind missing from a run counts 0 there).
func TestCPUByProcess(t *testing.T) {
	if got, want := cpuByLine(map[string]float64{"ffmpeg": 2, "gpu": 9.04, "clapper": 2, "renderer": 4.5, "other chromium": 0.01}), "gpu 9.0, renderer 4.5, clapper 2.0, ffmpeg 2.0"; got != want {
		t.Errorf("cpuByLine = %q, want %q", got, want)
	}
	if got := cpuByLine(nil); got != "no process seen" {
		t.Errorf("cpuByLine(nil) = %q", got)
	}
	runs := []scenarioRun{
		{CPUBy: map[string]float64{"gpu": 9, "node": 1}},
		{CPUBy: map[string]float64{"gpu": 7}},
		{CPUBy: map[string]float64{"gpu": 8, "node": 3}},
	}
	m := medianScenario(runs)
	if m.CPUBy["gpu"] != 8 || m.CPUBy["node"] != 1 || len(m.CPUBy) != 2 {
		t.Errorf("median %v, want gpu 8 and node 1", m.CPUBy)
	}
	c := &treeCPU{base: map[procKey]time.Duration{}, seen: map[procKey]time.Duration{}, kind: map[procKey]string{}, self: time.Second}
	c.note([]procfs.Proc{{Pid: 3, Start: 1, Comm: "ffmpeg", CPU: 2 * time.Second}, {Pid: 4, Start: 1, Comm: "chromium", Cmdline: "chromium --type=gpu-process", CPU: 5 * time.Second}})
	c.note([]procfs.Proc{{Pid: 3, Start: 1, Comm: "ffmpeg", CPU: 3 * time.Second}})
	// A zygote's child is counted as what it names itself later.
	c.note([]procfs.Proc{{Pid: 5, Start: 2, Comm: "chromium", Cmdline: "chromium --type=zygote", CPU: time.Second}})
	c.note([]procfs.Proc{{Pid: 5, Start: 2, Comm: "chromium", Cmdline: "chromium --type=renderer", CPU: 2 * time.Second}})
	if got := fmt.Sprint(c.byKind("clapper")); got != "map[clapper:1 ffmpeg:3 gpu:5 renderer:2]" {
		t.Errorf("byKind = %s", got)
	}
}

// bench capture's breakdown: each kind's use between two readings, per
// second, as percents of a core; a median over runs per kind.
func TestCaptureCPUByProcess(t *testing.T) {
	before := map[string]time.Duration{"gpu": 10 * time.Second, "browser": 4 * time.Second}
	after := map[string]time.Duration{"gpu": 14 * time.Second, "browser": 4 * time.Second, "renderer": time.Second}
	by := perSecondBy(before, after, 10)
	if got := fmt.Sprint(by); got != "map[gpu:0.4 renderer:0.1]" {
		t.Errorf("perSecondBy = %s", got)
	}
	if got := percentBy(by); got != "gpu 40%, renderer 10%" {
		t.Errorf("percentBy = %q", got)
	}
	if total(after) != 19*time.Second {
		t.Errorf("total %v", total(after))
	}
	m := medianBy([]map[string]float64{{"gpu": 0.4}, {"gpu": 0.2, "renderer": 0.1}, {"gpu": 0.3}}, func(m map[string]float64) map[string]float64 { return m })
	if got := fmt.Sprint(m); got != "map[gpu:0.3]" { // renderer's median is 0
		t.Errorf("medianBy = %s", got)
	}
}

// A failed run is named with its series and why (its first line), the
// others counted, so that the sitting ends with an error that says what
// its figures leave out.
func TestFailures(t *testing.T) {
	live := RunMode{Capture: scripts.CaptureStudio}
	if got := failures([]scenarioMode{{Mode: live, Runs: make([]scenarioRun, 3)}, {Mode: PlaywrightMode, Runs: make([]scenarioRun, 3)}}); got != "" {
		t.Errorf("no failure: %q", got)
	}
	got := failures([]scenarioMode{
		{Mode: live, Runs: make([]scenarioRun, 2), Failed: []failedRun{{Run: 3, Error: "s.yaml:12:5: step 4 (type) failed: timeout 10s\n    - type: x\n      ^"}}},
		{Mode: PlaywrightMode, Runs: make([]scenarioRun, 3)},
	})
	want := "1 of 6 runs failed, and the figures are the others' (studio run 3: s.yaml:12:5: step 4 (type) failed: timeout 10s)"
	if got != want {
		t.Errorf("failures:\n got %q\nwant %q", got, want)
	}
}
