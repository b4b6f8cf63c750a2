package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/clapper-dev/clapper/film"
	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/suite"
)

// SuiteOptions are clapper bench suite's settings.
type SuiteOptions struct {
	// Script is copied Copies times into a suite; its folder's other
	// files (a served site, the parts it includes) go with the copies.
	Script  string
	Copies  int
	Workers []int
	// Captures are the capture modes compared: live, studio.
	Captures        []string
	Runs            int
	NoVideo         bool
	NoSandbox, JSON bool
	Chromium        string
	Shell           string
	FFmpeg          string
	Keep            string
	QuietWait       time.Duration
	Tool, Revision  string
}

// suiteRun is one way of filming the copies: one after the other as
// separate runs (Workers 0), or as one suite with that many workers.
type suiteRun struct {
	Capture string  `json:"capture"`
	Workers int     `json:"workers"` // 0: the copies one after the other, a run each
	WallS   float64 `json:"wall_s"`
	CPUS    float64 `json:"cpu_s"`
	// OthersCPUS is the CPU the rest of the machine used meanwhile.
	OthersCPUS float64 `json:"others_cpu_s"`
	Passed     int     `json:"passed"`
}

type suiteReport struct {
	Script  string  `json:"script"`
	Copies  int     `json:"copies"`
	Video   bool    `json:"video"`
	Runs    int     `json:"runs"`
	Machine machine `json:"machine"`
	Default struct {
		Live   int `json:"live"`
		Studio int `json:"studio"`
	} `json:"default_workers"`
	// Medians of each way, then every run.
	Medians []suiteRun `json:"medians"`
	All     []suiteRun `json:"runs_all"`
	// Worst is the slowest run of each way (by wall time).
	Worst []suiteRun `json:"worst"`
}

// Suite films Copies copies of a script one after the other, each as
// clapper run films one script, and as a suite with each number of
// workers, in each capture mode; runs alternate between the ways so that
// a change on the machine falls on all of them. It reports wall time and
// the CPU of clapper and everything it started (browsers, ffmpeg), with
// each way's ratio to the sequential runs.
func Suite(ctx context.Context, o SuiteOptions, w, progress io.Writer) error {
	if o.Copies < 1 || o.Runs < 1 || len(o.Workers) == 0 || len(o.Captures) == 0 {
		return errors.New("bench suite: give at least one copy, run, worker count and capture mode")
	}
	work, err := os.MkdirTemp("", "clapper-bench-suite-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	dir, err := copyScript(o.Script, filepath.Join(work, "scripts"), o.Copies)
	if err != nil {
		return err
	}
	rep := suiteReport{Script: o.Script, Copies: o.Copies, Video: !o.NoVideo, Runs: o.Runs, Machine: thisMachine()}
	rep.Default.Live, rep.Default.Studio = suite.DefaultWorkers(false), suite.DefaultWorkers(true)
	ways := []suiteRun{}
	for _, c := range o.Captures {
		ways = append(ways, suiteRun{Capture: c})
		for _, n := range o.Workers {
			ways = append(ways, suiteRun{Capture: c, Workers: n})
		}
	}
	byWay := make([][]suiteRun, len(ways))
	for r := range o.Runs {
		for i, way := range ways {
			// Alternate the order from run to run.
			if r%2 == 1 {
				i = len(ways) - 1 - i
				way = ways[i]
			}
			fmt.Fprintf(progress, "bench suite: run %d of %d, %s\n", r+1, o.Runs, way.name())
			out := filepath.Join(work, "out", fmt.Sprintf("%d-%s-%d", r, way.Capture, way.Workers))
			got, err := filmCopies(ctx, o, dir, out, way, progress)
			if err != nil {
				return fmt.Errorf("%s: %w", way.name(), err)
			}
			if o.Keep != "" {
				if err := os.CopyFS(filepath.Join(o.Keep, filepath.Base(out)), os.DirFS(out)); err != nil {
					return fmt.Errorf("--keep %s: %w (give a folder without an earlier bench's output)", o.Keep, err)
				}
			}
			byWay[i] = append(byWay[i], got)
			rep.All = append(rep.All, got)
			// Only the figures are kept: a way's videos and frames go
			// before the next.
			if err := os.RemoveAll(out); err != nil {
				return err
			}
		}
	}
	for _, runs := range byWay {
		rep.Medians = append(rep.Medians, medianSuite(runs))
		rep.Worst = append(rep.Worst, slices.MaxFunc(runs, func(a, b suiteRun) int { return int((a.WallS - b.WallS) * 1000) }))
	}
	if o.JSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	rep.print(w)
	return nil
}

func (r suiteRun) name() string {
	if r.Workers == 0 {
		return r.Capture + ", one clapper run after another"
	}
	return fmt.Sprintf("%s, a suite with %d worker%s", r.Capture, r.Workers, film.Plural(r.Workers))
}

// print writes the report as a table: each way's medians and its ratios to
// the sequential runs of the same capture mode, then the worst runs.
func (rep suiteReport) print(w io.Writer) {
	video := "with videos"
	if !rep.Video {
		video = "no video"
	}
	fmt.Fprintf(w, "bench suite: %d copies of %s, %s; medians of %d run%s on %s (default workers: live %d, studio %d)\n",
		rep.Copies, rep.Script, video, rep.Runs, film.Plural(rep.Runs), rep.Machine, rep.Default.Live, rep.Default.Studio)
	fmt.Fprintf(w, "%-7s %-12s %9s %9s %12s %9s %9s %7s %7s\n", "capture", "how", "wall", "CPU", "wall/script", "wall ×seq", "CPU ×seq", "passed", "others")
	var seq suiteRun
	for _, r := range rep.Medians {
		if r.Workers == 0 {
			seq = r
		}
		how := "sequential"
		if r.Workers > 0 {
			how = fmt.Sprintf("%d worker%s", r.Workers, film.Plural(r.Workers))
		}
		fmt.Fprintf(w, "%-7s %-12s %8.1fs %8.1fs %11.2fs %9.2f %9.2f %4d/%-2d %6.1fs\n", r.Capture, how, r.WallS, r.CPUS, r.WallS/float64(rep.Copies),
			ratio(r.WallS, seq.WallS), ratio(r.CPUS, seq.CPUS), r.Passed, rep.Copies, r.OthersCPUS)
	}
	fmt.Fprintf(w, "worst runs (by wall):")
	for _, r := range rep.Worst {
		fmt.Fprintf(w, " %s: %.1fs (CPU %.1fs);", r.name(), r.WallS, r.CPUS)
	}
	fmt.Fprintln(w)
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// filmCopies films every copy in dir into out one way, and measures it.
func filmCopies(ctx context.Context, o SuiteOptions, dir, out string, way suiteRun, progress io.Writer) (suiteRun, error) {
	if err := settle(ctx, o.QuietWait); err != nil {
		return way, err
	}
	// Each run writes its report, as a suite's runs do: both ways do the
	// same work.
	fo := film.Options{NoSandbox: o.NoSandbox, Chromium: o.Chromium, Shell: o.Shell, FFmpeg: o.FFmpeg, NoVideo: o.NoVideo,
		Capture: way.Capture, UI: film.NewUI(true, io.Discard, progress), Silent: true, View: true, Tool: o.Tool, Revision: o.Revision}
	cpu := startTreeCPU()
	busy0 := machineBusy()
	t0 := time.Now()
	var err error
	if way.Workers == 0 {
		// A copy that fails is counted, as the suite counts it.
		var copies []string
		copies, err = filepath.Glob(filepath.Join(dir, "copy-*.yaml"))
		for _, c := range copies {
			if ctx.Err() != nil {
				break
			}
			fo.Script, fo.Out = c, filepath.Join(out, strings.TrimSuffix(filepath.Base(c), ".yaml"))
			if film.Run(ctx, fo) == nil {
				way.Passed++
			}
		}
		if err == nil {
			err = ctx.Err()
		}
	} else {
		var sum *suite.Summary
		sum, err = suite.Run(ctx, suite.Options{Args: []string{dir}, Out: out, Workers: way.Workers, Film: fo, Errors: progress})
		if sum != nil {
			way.Passed = sum.Totals.Passed
		}
	}
	way.WallS = time.Since(t0).Seconds()
	used := cpu.stop()
	way.CPUS = used.Seconds()
	way.OthersCPUS = max(0, (machineBusy() - busy0 - used).Seconds())
	return way, err
}

// copyScript copies the script n times into dir (copy-01.yaml, …) with
// the other files of its folder that are not run scripts (a served site,
// pictures), and the parts it includes at the same relative paths, and
// returns dir.
func copyScript(script, dir string, n int) (string, error) {
	s, err := scripts.Load(script, scripts.LoadOptions{LookupEnv: os.LookupEnv})
	if err != nil {
		return "", err
	}
	src := filepath.Dir(script)
	b, err := os.ReadFile(script)
	if err != nil {
		return "", err
	}
	parts := map[string]bool{}
	for _, st := range s.Steps {
		if st.Pos.File != "" && filepath.Clean(st.Pos.File) != filepath.Clean(script) {
			if abs, err := filepath.Abs(st.Pos.File); err == nil {
				parts[abs] = true
			}
		}
	}
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		abs, _ := filepath.Abs(p)
		switch {
		case d.IsDir() && p != src && strings.HasPrefix(d.Name(), "."):
			return filepath.SkipDir
		case d.IsDir():
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		case strings.HasSuffix(p, ".yaml") && !parts[abs], !d.Type().IsRegular():
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), data, 0o644)
	})
	if err != nil {
		return "", fmt.Errorf("copy %s's folder: %w", script, err)
	}
	for i := 1; i <= n; i++ {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("copy-%02d.yaml", i)), b, 0o644); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// medianSuite takes the median of each figure across the runs of one way
// (medianFields), and the fewest scripts passed.
func medianSuite(runs []suiteRun) suiteRun {
	out := runs[0]
	medianFields(reflect.ValueOf(&out).Elem(), fieldOfRuns(runs), nil)
	out.Passed = slices.MinFunc(runs, func(a, b suiteRun) int { return a.Passed - b.Passed }).Passed
	return out
}
