package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/clapper-dev/clapper/internal/procfs"

	"github.com/urfave/cli/v2"
	"golang.org/x/sys/unix"

	"github.com/clapper-dev/clapper/internal/benchpage"
	"github.com/clapper-dev/clapper/recorder"
	"github.com/clapper-dev/clapper/session"
	"github.com/clapper-dev/clapper/timeline"
)

type benchCaptureOptions struct {
	sizes     [][2]int
	scales    []float64 // device scale of each size (WxH@2)
	modes     []string  // capture modes to compare, in order
	shell     string    // chromium-headless-shell, for studio
	seconds   time.Duration
	runs      int
	json      bool
	quality   int
	inFlight  int
	everyNth  int
	sendLast  bool
	mapping   string
	chromium  string
	noSandbox bool
	args      []string
	keep      string
	settle    time.Duration
}

func benchCommand() *cli.Command {
	capture := benchCaptureCommand()
	return &cli.Command{
		Name:  "bench",
		Usage: "capture and render benchmarks",
		Description: "Measure capture, render and whole runs on the bench page, a page that paints a code in every frame;\n" +
			"docs/internals.md has the figures and the commands that took them.\n" +
			"Example: clapper bench run --capture live,studio",
		HideHelpCommand: true,
		Subcommands:     []*cli.Command{capture, benchRenderCommand(), benchRunCommand()},
		Action: func(c *cli.Context) error {
			return usageErr("bench needs a benchmark: clapper bench capture, clapper bench render, or clapper bench run")
		},
	}
}

func benchCaptureCommand() *cli.Command {
	return &cli.Command{
		Name:  "capture",
		Usage: "record the bench page for a fixed time and report rate, coverage, order, timing error and recorder CPU, from the take alone",
		Description: "Live and studio side by side with --capture live,studio (studio-screenshot: studio with each picture taken by its\n" +
			"begin-frame instead of from the screencast); run time against the take, and the CPU of every process.\n" +
			"Example: clapper bench capture --capture studio,studio-screenshot --seconds 3 --size 1280x720 --size 1280x720@2",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "size", Value: cli.NewStringSlice("1280x720"), Usage: "viewport WIDTHxHEIGHT, or WIDTHxHEIGHT@2 for device scale 2; repeatable"},
			&cli.StringSliceFlag{Name: "capture", Value: cli.NewStringSlice("live"), Usage: "capture mode: live, studio, or studio-screenshot (studio with each picture taken by its begin-frame instead of from the screencast beside the frame pump); repeatable (or live,studio) to compare them in one run"},
			&cli.StringFlag{Name: "chromium-shell", Usage: "chromium-headless-shell executable for studio capture (or CLAPPER_CHROMIUM_SHELL)"},
			&cli.Float64Flag{Name: "seconds", Value: 10, Usage: "capture length per run, in seconds"},
			&cli.IntFlag{Name: "runs", Value: 3, Usage: "runs per size; figures are their medians"},
			&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
			&cli.IntFlag{Name: "quality", Value: recorder.DefaultQuality, Usage: "JPEG quality"},
			&cli.IntFlag{Name: "in-flight", Value: recorder.DefaultFramesInFlight, Usage: "maxFramesInFlight asked of Chromium"},
			&cli.BoolFlag{Name: "send-last-frame", Value: recorder.DefaultSendLastFrame, Usage: "ask Chromium to send the last frame it held back on the next ack (--send-last-frame=false turns it off)"},
			&cli.IntFlag{Name: "every-nth", Value: 1, Usage: "ask Chromium for one frame in n"},
			&cli.StringFlag{Name: "mapping", Usage: "force the source-time mapping: monotonic or wall-offset"},
			&cli.StringFlag{Name: "chromium", EnvVars: []string{"CLAPPER_CHROMIUM"}, Usage: "Chromium executable"},
			&cli.BoolFlag{Name: "no-sandbox", EnvVars: []string{"CLAPPER_NO_SANDBOX"}, Usage: "run Chromium without its sandbox (needed as root)"},
			&cli.StringSliceFlag{Name: "chromium-arg", Usage: "extra Chromium flag, e.g. --chromium-arg=--disable-gpu-vsync; repeatable"},
			&cli.StringFlag{Name: "keep", Usage: "keep each run's take in this folder"},
			&cli.DurationFlag{Name: "settle", Value: 30 * time.Second, Usage: "before each run, wait up to this long for other work on the machine to fall under a third of a core (0: do not wait)"},
		},
		Action: func(cc *cli.Context) error {
			c := lineageFlags{cc}
			o := benchCaptureOptions{
				seconds: time.Duration(c.Float64("seconds") * float64(time.Second)), runs: c.Int("runs"), json: c.Bool("json"),
				quality: c.Int("quality"), inFlight: c.Int("in-flight"), everyNth: c.Int("every-nth"),
				sendLast: c.Bool("send-last-frame"), mapping: c.String("mapping"), chromium: c.String("chromium"),
				noSandbox: c.Bool("no-sandbox"), args: c.StringSlice("chromium-arg"), keep: c.String("keep"),
				settle: c.Duration("settle"),
			}
			modes, err := benchModes(c.StringSlice("capture"), true)
			if err != nil {
				return err
			}
			o.modes, o.shell = modes, c.String("chromium-shell")
			for _, s := range c.StringSlice("size") {
				s, scale, err := benchScale(s)
				if err != nil {
					return usageErr("--size %q: %v", s, err)
				}
				o.scales = append(o.scales, scale)
				w, h, err := parseSize(s)
				if err != nil {
					return usageErr("--size %q: %v", s, err)
				}
				if w < benchpage.MinWidth || h < benchpage.MinHeight {
					return usageErr("--size %q: the bench page's code needs at least %dx%d", s, benchpage.MinWidth, benchpage.MinHeight)
				}
				o.sizes = append(o.sizes, [2]int{w, h})
			}
			switch {
			case o.seconds <= 0 || o.runs <= 0:
				return usageErr("--seconds and --runs must be positive")
			case o.quality < 1 || o.quality > 100:
				return usageErr("--quality must be 1 to 100")
			case o.inFlight < 1 || o.everyNth < 1:
				return usageErr("--in-flight and --every-nth must be at least 1")
			case o.mapping != "" && o.mapping != string(timeline.MappingMonotonic) && o.mapping != string(timeline.MappingWallOffset):
				return usageErr("--mapping must be monotonic or wall-offset")
			}
			return benchCapture(cc.Context, o)
		},
	}
}

// lineageFlags reads a flag from the nearest command level that set it.
type lineageFlags struct{ c *cli.Context }

func (l lineageFlags) at(name string) *cli.Context {
	for _, x := range l.c.Lineage() {
		if x.Command != nil && x.IsSet(name) {
			return x
		}
	}
	return l.c
}

func (l lineageFlags) StringSlice(n string) []string { return l.at(n).StringSlice(n) }
func (l lineageFlags) String(n string) string        { return l.at(n).String(n) }
func (l lineageFlags) Float64(n string) float64      { return l.at(n).Float64(n) }
func (l lineageFlags) Int(n string) int              { return l.at(n).Int(n) }
func (l lineageFlags) Bool(n string) bool            { return l.at(n).Bool(n) }
func (l lineageFlags) Duration(n string) time.Duration {
	return l.at(n).Duration(n)
}

// benchRun is one run's figures: the take's, plus CPU measured around the
// capture.
type benchRun struct {
	benchpage.Figures
	// RecorderCPU is this process's CPU time (user + system, all threads)
	// per second of capture: 0.05 is 5% of one core. Chromium is not in it.
	RecorderCPU float64 `json:"recorder_cpu"`
	// ChromiumCPU is the CPU time of Chromium's process group per second of
	// capture (read from /proc), for context.
	ChromiumCPU float64 `json:"chromium_cpu"`
	// OthersCPU is the rest of the machine's busy CPU time per second of
	// capture (from /proc/stat, minus this process and Chromium): other
	// work sharing the cores, which the figures above do not control.
	OthersCPU float64 `json:"others_cpu"`
	// CrossCheckMs is the largest difference between the wall-offset and
	// the monotonic mapping of one frame's source time.
	CrossCheckMs float64 `json:"cross_check_ms"`
	// AckMeanMs and AckMaxMs are the round trips of the frame acks.
	AckMeanMs float64 `json:"ack_mean_ms"`
	AckMaxMs  float64 `json:"ack_max_ms"`
	EndReason string  `json:"end_reason"`
	// Mode is the capture mode; RunTimeRatio is the capture's wall time
	// over its take time (studio: how much slower than real time the
	// frames were made; live is 1 by construction).
	Mode         string  `json:"mode"`
	RunTimeRatio float64 `json:"run_time_ratio"`
	// AllCPU is this process, Chromium and the rest of the machine
	// together, per second of wall time of the capture.
	AllCPU float64 `json:"all_cpu"`
}

type benchSize struct {
	Size   string     `json:"size"`
	Runs   []benchRun `json:"runs"`
	Median benchRun   `json:"median"`
}

type benchReport struct {
	Chromium string         `json:"chromium"`
	Settings map[string]any `json:"settings"`
	Sizes    []benchSize    `json:"sizes"`
}

// serveBenchPage serves the bench page on loopback until the server is
// closed.
func serveBenchPage() (*http.Server, string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", fmt.Errorf("serve the bench page: %w", err)
	}
	srv := &http.Server{Handler: benchpage.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }() // owned by the caller: ends when it closes srv
	return srv, "http://" + ln.Addr().String() + "/", nil
}

func benchCapture(ctx context.Context, o benchCaptureOptions) error {
	srv, pageURL, err := serveBenchPage()
	if err != nil {
		return err
	}
	defer srv.Close()

	rep := benchReport{Settings: map[string]any{
		"seconds": o.seconds.Seconds(), "runs": o.runs, "quality": o.quality, "in_flight": o.inFlight,
		"send_last_frame": o.sendLast, "every_nth": o.everyNth, "chromium_args": o.args, "mapping": o.mapping,
	}}
	for si, sz := range o.sizes {
		// The modes take turns run by run, so that both see the same
		// moments of a shared machine.
		sizes := make([]benchSize, len(o.modes))
		for m, mode := range o.modes {
			sizes[m] = benchSize{Size: benchLabel(sz[0], sz[1], o.scales[si], mode, len(o.modes) > 1)}
		}
		for i := 0; i < o.runs; i++ {
			for m, mode := range o.modes {
				bs := &sizes[m]
				var r benchRun
				var version string
				var err error
				if mode != "live" {
					r, version, err = benchStudioRun(ctx, o, sz[0], sz[1], o.scales[si], pageURL, i+1, mode)
				} else {
					r, version, err = benchCaptureRun(ctx, o, sz[0], sz[1], o.scales[si], pageURL, i+1)
				}
				if err != nil {
					return fmt.Errorf("bench capture %s run %d: %w", bs.Size, i+1, err)
				}
				r.Mode = mode
				rep.Chromium = version
				bs.Runs = append(bs.Runs, r)
				if !o.json {
					fmt.Fprintf(os.Stderr, "%s run %d: %s\n", bs.Size, i+1, r.line())
				}
			}
		}
		for m := range sizes {
			sizes[m].Median = medianRun(sizes[m].Runs)
			rep.Sizes = append(rep.Sizes, sizes[m])
		}
	}
	if o.json {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	fmt.Printf("chromium %s; %v per run, %d runs, quality %d, in-flight %d, send-last-frame %v, every-nth %d",
		rep.Chromium, o.seconds, o.runs, o.quality, o.inFlight, o.sendLast, o.everyNth)
	if len(o.args) > 0 {
		fmt.Printf(", flags %s", strings.Join(o.args, " "))
	}
	fmt.Println()
	for _, bs := range rep.Sizes {
		fmt.Printf("%-18s median: %s\n", bs.Size, bs.Median.line())
	}
	return nil
}

func (r benchRun) line() string {
	return fmt.Sprintf("%.1f frames/s received (%.1f delivered), coverage %.3f (%d of %d page frames), late %d, duplicates %d, overflow %d, rejected %d, backwards %d, repeats %d, undecodable %d, longest gap %.1f ms, "+
		"timing error p50/p95/max %.2f/%.2f/%.2f ms (rAF time; performance.now() %.2f/%.2f/%.2f), offset %.2f ms, latency p50/p95 %.1f/%.1f ms, recorder CPU %.1f%% of a core, chromium %.0f%%, others %.0f%%, ack round trip mean/max %.2f/%.1f ms, %s mapping",
		r.ReceivedPerSec, r.DeliveredPerSec, r.Coverage, r.Distinct, r.Painted, r.Late, r.Duplicates, r.Overflow, r.Rejected, r.Backwards, r.Repeats, r.Undecodable, r.LongestGapMs,
		r.ErrorRAF.P50, r.ErrorRAF.P95, r.ErrorRAF.Max, r.ErrorNow.P50, r.ErrorNow.P95, r.ErrorNow.Max, r.OffsetMs, r.Latency.P50, r.Latency.P95,
		100*r.RecorderCPU, 100*r.ChromiumCPU, 100*r.OthersCPU, r.AckMeanMs, r.AckMaxMs, r.Mapping) +
		fmt.Sprintf(", run time %.2fx the take, all CPU %.0f%%", r.RunTimeRatio, 100*r.AllCPU)
}

// benchCaptureRun launches a Chromium at the size, opens the bench page,
// records it for o.seconds into a take, closes the browser, and analyses
// the take.
func benchCaptureRun(ctx context.Context, o benchCaptureOptions, w, h int, scale float64, pageURL string, n int) (benchRun, string, error) {
	dir, drop, err := benchTakeDir(o.keep, benchDirName(w, h, scale, "live", n))
	if err != nil {
		return benchRun{}, "", err
	}
	defer drop()
	if err := settle(ctx, o.settle); err != nil {
		return benchRun{}, "", err
	}
	b, err := session.Launch(ctx, session.LaunchOptions{Path: o.chromium, Headless: true, NoSandbox: o.noSandbox, Width: w, Height: h, Args: o.args})
	if err != nil {
		if errors.Is(err, session.ErrRootNeedsNoSandbox) {
			return benchRun{}, "", usageErr("%w", err)
		}
		return benchRun{}, "", err
	}
	defer b.Close()
	tab, closeTab, err := b.NewTab(ctx)
	if err != nil {
		return benchRun{}, "", err
	}
	defer closeTab()
	version, _ := session.Version(tab)
	if err := session.SetViewport(tab, w, h, scale); err != nil {
		return benchRun{}, "", fmt.Errorf("set viewport: %w", err)
	}
	if err := session.Navigate(tab, pageURL); err != nil {
		return benchRun{}, "", fmt.Errorf("open the bench page: %w", err)
	}
	// Let the page settle into its animation before measuring.
	if err := sleepCtx(ctx, time.Second); err != nil {
		return benchRun{}, "", err
	}
	origin, err := session.EvalNumber(tab, `performance.timeOrigin`)
	if err != nil {
		return benchRun{}, "", fmt.Errorf("read the page clock: %w", err)
	}

	log, err := timeline.CreateTake(dir)
	if err != nil {
		return benchRun{}, "", err
	}
	clock := recorder.NewClock()
	tl := &timeline.Timeline{
		Name: "bench capture", Tool: "clapper " + version, Outcome: "ok",
		Viewport: timeline.Viewport{Width: w, Height: h, Scale: scale},
		Steps:    []timeline.Step{}, Receipts: []timeline.Receipt{}, Holds: []timeline.Hold{},
	}
	cpu0, chrome0, busy0 := selfCPU(), groupCPU(b.Pid()), machineBusy()
	t0 := clock.Now()
	capt, err := recorder.Start(tab, recorder.Options{
		Dir: dir, Log: log, Clock: clock, Tab: "bench", Quality: o.quality, MaxWidth: int(float64(w) * scale), MaxHeight: int(float64(h) * scale),
		EveryNthFrame: o.everyNth, InitialURL: pageURL, MaxFramesInFlight: o.inFlight, NoSendLastFrame: !o.sendLast,
		Mapping: timeline.Mapping(o.mapping),
	})
	if err != nil {
		log.Close()
		return benchRun{}, "", err
	}
	serr := sleepCtx(ctx, o.seconds)
	res := capt.Stop(context.Background())
	t1 := clock.Now()
	cpu1, chrome1, busy1 := selfCPU(), groupCPU(b.Pid()), machineBusy()
	if err := sealBenchTake(dir, log, tl, res, serr); err != nil {
		return benchRun{}, "", err
	}
	info, _ := json.Marshal(benchpage.Info{TimeOrigin: origin})
	if err := os.WriteFile(filepath.Join(dir, benchpage.InfoFile), info, 0o644); err != nil {
		return benchRun{}, "", err
	}
	closeTab()
	b.Close()

	fig, err := benchpage.Analyze(dir)
	if err != nil {
		return benchRun{}, "", err
	}
	secs := (t1 - t0).Seconds()
	return benchRun{
		Figures: fig, RecorderCPU: (cpu1 - cpu0).Seconds() / secs, ChromiumCPU: (chrome1 - chrome0).Seconds() / secs,
		OthersCPU:    max(0, ((busy1-busy0)-(cpu1-cpu0)-(chrome1-chrome0)).Seconds()/secs),
		CrossCheckMs: durMs(res.CrossCheck.MaxDiff), EndReason: res.Capture.EndReason,
		AckMeanMs: durMs(res.AckMean), AckMaxMs: durMs(res.AckMax), RunTimeRatio: 1, AllCPU: (busy1 - busy0).Seconds() / secs,
	}, version, nil
}

func durMs(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// selfCPU is this process's user + system CPU time, all threads.
func selfCPU() time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// groupCPU sums the user + system CPU time of the live processes in
// process group pgid, from /proc (clock ticks of 10 ms).
func groupCPU(pgid int) time.Duration {
	if pgid <= 0 {
		return 0
	}
	var cpu time.Duration
	for _, p := range procfs.List() {
		if p.Pgid == pgid {
			cpu += p.CPU
		}
	}
	return cpu
}

// settle waits, up to max, for a second in which the rest of the machine
// used under a third of a core, so runs start from comparable conditions.
// Other work can still start during the run: OthersCPU reports it.
func settle(ctx context.Context, max time.Duration) error {
	deadline := time.Now().Add(max)
	for time.Now().Before(deadline) {
		b0, s0 := machineBusy(), selfCPU()
		if err := sleepCtx(ctx, time.Second); err != nil {
			return err
		}
		if (machineBusy()-b0)-(selfCPU()-s0) < time.Second/3 {
			return nil
		}
	}
	return nil
}

// machineBusy is the machine's busy CPU time, all cores, from /proc/stat
// (user, nice, system, irq, softirq, steal; clock ticks of 10 ms).
func machineBusy() time.Duration {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0
	}
	var ticks int64
	for _, i := range []int{1, 2, 3, 6, 7, 8} {
		n, _ := strconv.ParseInt(f[i], 10, 64)
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}

// medianRun takes the median of every numeric figure across runs; text
// fields come from the first run.
func medianRun(runs []benchRun) benchRun {
	if len(runs) == 0 {
		return benchRun{}
	}
	out := runs[0]
	medianFields(reflect.ValueOf(&out).Elem(), fieldOfRuns(runs), nil)
	return out
}

func medianFields(v reflect.Value, values func(path []int) []float64, path []int) {
	for i := 0; i < v.NumField(); i++ {
		f, p := v.Field(i), append(slices.Clone(path), i)
		switch f.Kind() {
		case reflect.Struct:
			medianFields(f, values, p)
		case reflect.Int, reflect.Int64:
			f.SetInt(int64(medianOf(values(p)) + 0.5))
		case reflect.Float64:
			f.SetFloat(medianOf(values(p)))
		}
	}
}

func medianOf(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// fieldOfRuns reads one numeric field, by its index path, of every run.
func fieldOfRuns[T any](runs []T) func(path []int) []float64 {
	return func(path []int) []float64 {
		v := make([]float64, len(runs))
		for i := range runs {
			f := reflect.ValueOf(runs[i]).FieldByIndex(path)
			if f.CanInt() {
				v[i] = float64(f.Int())
			} else {
				v[i] = f.Float()
			}
		}
		return v
	}
}

// benchTakeDir is where a benchmark run writes its take: keep/name when
// the takes are kept (drop does nothing), else a temporary folder that
// drop removes.
func benchTakeDir(keep, name string) (dir string, drop func(), err error) {
	if keep != "" {
		dir = filepath.Join(keep, name)
		return dir, func() {}, os.MkdirAll(dir, 0o755)
	}
	tmp, err := os.MkdirTemp("", "clapper-bench-")
	if err != nil {
		return "", nil, err
	}
	return tmp, func() { os.RemoveAll(tmp) }, nil
}

// sealBenchTake closes a benchmark take's frame log and writes its
// timeline from the capture's result, unless the log cannot be closed or
// serr (the error of the wait during the capture) is set.
func sealBenchTake(dir string, log io.Closer, tl *timeline.Timeline, res recorder.Result, serr error) error {
	if err := log.Close(); err != nil {
		return err
	}
	if serr != nil {
		return serr
	}
	tl.Clock, tl.Capture, tl.Boundaries = res.Clock, res.Capture, res.Boundaries
	tl.Start, tl.End = res.Capture.Started, res.Capture.Ended
	return timeline.WriteTimeline(dir, tl)
}
