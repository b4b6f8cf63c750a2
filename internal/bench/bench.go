// Package bench is clapper's benchmarks: the capture of the bench page
// alone (Capture), a scripted scenario filmed end to end through the same
// run as clapper run (Run, which calls film.Run), the render (Render),
// and copies of a script filmed one run after another and as suites with
// each number of workers (Suite, through suite.Run).
// It serves the bench page (internal/benchpage), measures CPU from /proc,
// and reports medians; clapper bench reads the flags into options and
// calls it. docs/internals.md holds the figures it has given.
package bench

import (
	"context"
	"fmt"
	"io"
	"maps"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/clapper-dev/clapper/internal/benchpage"
	"github.com/clapper-dev/clapper/internal/procfs"
	"github.com/clapper-dev/clapper/recorder"
	"github.com/clapper-dev/clapper/timeline"
)

// servePage serves the bench page on loopback until the server is
// closed.
func servePage() (*http.Server, string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", fmt.Errorf("serve the bench page: %w", err)
	}
	srv := &http.Server{Handler: benchpage.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }() // owned by the caller: ends when it closes srv
	return srv, "http://" + ln.Addr().String() + "/", nil
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

// groupCPUBy sums the user + system CPU time of the live processes in
// process group pgid, from /proc (clock ticks of 10 ms), by kind of
// process (procKind).
func groupCPUBy(pgid int) map[string]time.Duration {
	out := map[string]time.Duration{}
	if pgid <= 0 {
		return out
	}
	for _, p := range procfs.List() {
		if p.Pgid == pgid {
			out[procKind(p)] += p.CPU
		}
	}
	return out
}

// perSecondBy is, for each kind, the CPU used from before to after, per
// second of secs (0.5 is half a core); kinds that used none are left out.
// Pure.
func perSecondBy(before, after map[string]time.Duration, secs float64) map[string]float64 {
	out := map[string]float64{}
	for k, d := range after {
		if used := d - before[k]; used > 0 && secs > 0 {
			out[k] = perSecond(used.Seconds(), secs)
		}
	}
	return out
}

// total sums a breakdown.
func total(by map[string]time.Duration) time.Duration {
	var t time.Duration
	for _, d := range by {
		t += d
	}
	return t
}

// medianBy takes each kind's median across the runs' breakdowns (by of
// each; a kind missing from one counts 0 there; a kind whose median is 0
// is left out). Pure.
func medianBy[T any](runs []T, by func(T) map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for _, r := range runs {
		for k := range by(r) {
			if _, done := out[k]; done {
				continue
			}
			v := make([]float64, len(runs))
			for i := range runs {
				v[i] = by(runs[i])[k]
			}
			out[k] = medianOf(v)
		}
	}
	maps.DeleteFunc(out, func(_ string, v float64) bool { return v == 0 })
	return out
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

// takeDir is where a benchmark run writes its take: keep/name when the
// takes are kept (drop does nothing), else a temporary folder that drop
// removes.
func takeDir(keep, name string) (dir string, drop func(), err error) {
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

// sealTake closes a benchmark take's frame log and writes its timeline
// from the capture's result, unless the log cannot be closed or serr (the
// error of the wait during the capture) is set.
func sealTake(dir string, log io.Closer, tl *timeline.Timeline, res recorder.Result, serr error) error {
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

// machine is what a benchmark's figures depend on besides clapper: the
// cores it may use and what a page fault costs (procfs.PageFaultCost),
// which on a virtual machine whose hypervisor traps each fault makes the
// same capture 3 to 4.5 times as slow. Each report names it, so that
// figures are compared only with figures from a like machine. The costs
// are nil when they could not be measured.
type machine struct {
	Cores       int      `json:"cores"`
	PageFaultUS *float64 `json:"page_fault_us"`
	// SharedFaultUS is the same for memory shared between processes.
	SharedFaultUS *float64 `json:"shared_page_fault_us"`
}

func thisMachine() machine {
	m := machine{Cores: runtime.GOMAXPROCS(0)}
	if f, err := procfs.PageFaultCost(); err == nil {
		m.PageFaultUS, m.SharedFaultUS = micros(f.Anon), micros(f.Shared)
	}
	return m
}

func (m machine) String() string {
	if m.PageFaultUS == nil || m.SharedFaultUS == nil {
		return fmt.Sprintf("%d cores, the cost of a page fault unknown", m.Cores)
	}
	return fmt.Sprintf("%d cores, a page fault %.2f µs (%.2f µs shared)", m.Cores, *m.PageFaultUS, *m.SharedFaultUS)
}

// micros is d in microseconds, to two decimals.
func micros(d time.Duration) *float64 {
	us := math.Round(float64(d)/float64(time.Microsecond)*100) / 100
	return &us
}
