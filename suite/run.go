package suite

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/clapper-dev/clapper/compare"
	"github.com/clapper-dev/clapper/film"
	"github.com/clapper-dev/clapper/internal/exit"
	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/session"
	"github.com/clapper-dev/clapper/timeline"
)

// Options are a suite's: clapper run's with more than one script.
type Options struct {
	// Args are the scripts and folders given.
	Args []string
	// Out is the suite's output folder (default "out").
	Out string
	// Workers films that many scripts at once (0: DefaultWorkers).
	Workers int
	// Shard is the part of the suite to film (zero: all).
	Shard Shard
	// Balance, when set, is a previous suite's summary whose durations
	// balance the shards.
	Balance string
	// Retries re-films a failed script up to that many times.
	Retries int
	// JUnit, when set, is where the suite's one JUnit file goes.
	JUnit string
	// Baselines, when set, is a folder of approved takes: each script's
	// take is compared with Baselines/<its output folder>.clap (as run
	// --baseline does), and Update makes the new takes the baselines.
	Baselines string
	Update    bool
	Diff      compare.Options
	// Keep says whose videos and frame pictures are kept: KeepAll (or
	// ""), or KeepFailed, which removes them from the scripts that passed
	// at the first attempt (their takes keep timeline, journal and
	// report, sealed). A flaky script keeps all of its attempts.
	Keep string
	// Film is the template of every script's run options (sandbox,
	// executables, env, capture); Script, Out and UI are set per script.
	Film film.Options
	// Display shows the suite's progress (nil: nothing).
	Display Display
	// Errors is where the scripts that do not load are said (nil:
	// standard error).
	Errors io.Writer

	// launchShell, when set, launches the studio shells the suite lends
	// (tests count them).
	launchShell func(ctx context.Context, kind lent) (shell, error)
}

func (o Options) errors() io.Writer {
	if o.Errors == nil {
		return os.Stderr
	}
	return o.Errors
}

// Display shows a suite as it goes. Its methods are called from the
// workers' goroutines.
type Display interface {
	// Started: worker w films script (attempt from 1).
	Started(w int, script string, attempt int)
	// Step: worker w's run reached a step.
	Step(w int, p session.Progress)
	// Finished: worker w is done with a script.
	Finished(w int, e Entry)
}

// Run films the suite and writes its summary, index and JUnit file. It
// refuses, before anything launches, a suite with a script that does not
// load (each error printed with its file:line:col). The summary is
// returned even when scripts failed; the error is for the suite itself.
func Run(ctx context.Context, o Options) (*Summary, error) {
	plan, err := List(o)
	if err != nil {
		return nil, err
	}
	out := o.Out
	if out == "" {
		out = "out"
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, fmt.Errorf("create output folder: %w", err)
	}
	workers := o.Workers
	if workers <= 0 {
		// Studio unless the runs are told to film live, or render no
		// video (then each films live unless its script says studio).
		workers = DefaultWorkers(o.Film.Capture == "studio" || o.Film.Capture == "" && !o.Film.NoVideo)
	}
	workers = min(workers, max(1, len(plan)))
	sum := &Summary{Tool: o.Film.Tool, Started: time.Now().UTC().Truncate(time.Millisecond), Workers: workers, Scripts: make([]Entry, len(plan))}
	if !o.Shard.Whole() {
		sh := o.Shard
		sum.Shard = &sh
	}
	started := time.Now()
	lend := &browsers{live: &liveBrowser{noSandbox: o.Film.NoSandbox}, studio: newStudioShells(o.Film.Shell, workers, o.launchShell)}
	defer lend.close()
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 1; w <= workers; w++ {
		wg.Add(1)
		go func() { // owned by Run, which waits for it
			defer wg.Done()
			for i := range next {
				sum.Scripts[i] = filmOne(ctx, o, lend, w, plan[i], out)
			}
		}()
	}
feed:
	for i := range plan {
		select {
		case next <- i:
		case <-ctx.Done():
			// The rest are not started: each is said interrupted.
			for j := i; j < len(plan); j++ {
				sum.Scripts[j] = Entry{Script: plan[j].Script, Dir: plan[j].Dir, Name: plan[j].Name, Status: Interrupted, Exit: exit.Failed, Error: "not started: the suite was stopped", Attempts: []Attempt{}}
			}
			break feed
		}
	}
	close(next)
	wg.Wait()
	sum.WallMs = time.Since(started).Milliseconds()
	// Listed by output folder, whatever order they were filmed in, so
	// that a merge of the shards lists them as the whole suite does.
	slices.SortStableFunc(sum.Scripts, func(a, b Entry) int { return strings.Compare(a.Dir, b.Dir) })
	sum.Count()
	if err := Publish(sum, out, o.JUnit); err != nil {
		return sum, err
	}
	return sum, nil
}

// Listed is a script of a suite's plan: as given, its output folder
// (relative to the suite's) and its name.
type Listed struct {
	Script string `json:"script"`
	Dir    string `json:"dir"`
	Name   string `json:"name"`
	// lent is the browser the suite lends the script's runs (lends).
	lent lent
}

// List expands the scripts and folders given, loads every script (one
// that does not load stops the suite, with every error said) and returns
// the part of the suite o.Shard names, in the order it is filmed: what
// Run films, and what clapper run --list shows without filming.
func List(o Options) ([]Listed, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	all, err := Expand(o.Args)
	if err != nil {
		return nil, exit.Usagef("%v", err)
	}
	// Every script is loaded before anything launches: one bad script
	// stops the suite here, with every error said.
	included := map[string]bool{}
	names := map[string]string{}
	lending := map[string]lent{}
	bad := 0
	for _, p := range all {
		s, err := scripts.Load(p, scripts.LoadOptions{Env: o.Film.Env, LookupEnv: os.LookupEnv, Headed: o.Film.Headed})
		if err != nil {
			fmt.Fprintln(o.errors(), err)
			bad++
			continue
		}
		names[p], lending[p] = s.Name, lends(s, o.Film)
		for _, st := range s.Steps {
			if st.Pos.File != "" && st.Pos.File != p {
				if abs, err := filepath.Abs(st.Pos.File); err == nil {
					included[abs] = true
				}
			}
		}
	}
	if bad > 0 {
		return nil, &exit.Error{Code: exit.Usage, Err: &exit.Quiet{Err: fmt.Errorf("%d of %d scripts do not load: nothing was filmed", bad, len(all))}}
	}
	all = Exclude(all, included)
	var durations map[string]time.Duration
	if o.Balance != "" {
		prev, err := ReadSummary(o.Balance)
		if err != nil {
			return nil, exit.Usagef("--balance: %v", err)
		}
		durations = prev.Durations()
	}
	keyOf := func(p string) string { return filepath.ToSlash(OutDir(p, wd)) }
	plan := Plan(all, o.Shard, keyOf, durations)
	out := make([]Listed, len(plan))
	for i, p := range plan {
		out[i] = Listed{Script: p, Dir: keyOf(p), Name: names[p], lent: lending[p]}
	}
	return out, nil
}

// Publish writes a summary's suite.json and index.html in out, and its
// JUnit file when junit is set.
func Publish(sum *Summary, out, junit string) error {
	if err := sum.Write(out); err != nil {
		return fmt.Errorf("write the suite's summary: %w", err)
	}
	if err := WriteIndex(filepath.Join(out, IndexFile), sum, out); err != nil {
		return fmt.Errorf("write the suite's index: %w", err)
	}
	if junit != "" {
		x, err := sum.JUnit(out)
		if err == nil {
			err = os.WriteFile(junit, x, 0o644)
		}
		if err != nil {
			return fmt.Errorf("write JUnit report: %w", err)
		}
	}
	return nil
}

// filmOne films one script, again on failure up to o.Retries times.
func filmOne(ctx context.Context, o Options, lend *browsers, w int, l Listed, out string) Entry {
	script, key := l.Script, l.Dir
	var attempts []Attempt
	var e Entry
	began := time.Now()
	for attempt := 1; attempt <= 1+max(0, o.Retries); attempt++ {
		dir := key
		if attempt > 1 {
			dir = path.Join(key, fmt.Sprintf("retry-%d", attempt-1))
		}
		if o.Display != nil {
			o.Display.Started(w, script, attempt)
		}
		e = filmAttempt(ctx, o, lend, w, l, out, dir)
		attempts = append(attempts, Attempt{Dir: dir, Status: e.Status, Error: e.Error})
		if e.Status != Failed || ctx.Err() != nil {
			break
		}
	}
	e.Script, e.Dir, e.Attempts = script, key, attempts
	if e.Name == "" {
		e.Name = l.Name
	}
	if e.Status == Passed && len(attempts) > 1 {
		e.Status = Flaky
	}
	e.DurationMs = time.Since(began).Milliseconds()
	if o.Keep == KeepFailed && e.Status == Passed {
		prune(out, &e)
	}
	if o.Display != nil {
		o.Display.Finished(w, e)
	}
	return e
}

// Check refuses options no suite runs with (each error says the flag):
// retries below 0, --balance without --shard, a --keep that is not all or
// failed.
func (o Options) Check() error {
	if o.Retries < 0 {
		return fmt.Errorf("--retries %d: give 0 or more", o.Retries)
	}
	if o.Balance != "" && o.Shard.Whole() {
		return errors.New("--balance balances the parts of --shard i/n: give --shard too")
	}
	return checkKeep(o.Keep)
}

// PrintList writes what List returned, a line each to w: the script, a
// tab, its output folder; then how many, and of which part, to info.
func PrintList(w, info io.Writer, o Options, l []Listed) {
	out := o.Out
	if out == "" {
		out = "out"
	}
	for _, e := range l {
		fmt.Fprintf(w, "%s\t%s\n", e.Script, filepath.Join(out, filepath.FromSlash(e.Dir)))
	}
	part := ""
	if !o.Shard.Whole() {
		part = fmt.Sprintf(" in part %s", o.Shard)
	}
	noun := "scripts"
	if len(l) == 1 {
		noun = "script"
	}
	fmt.Fprintf(info, "%d %s%s; nothing filmed (--list)\n", len(l), noun, part)
}

// What a suite keeps of each script (Options.Keep).
const (
	KeepAll    = "all"
	KeepFailed = "failed"
)

// checkKeep refuses a --keep that is neither all nor failed.
func checkKeep(k string) error {
	if k != "" && k != KeepAll && k != KeepFailed {
		return fmt.Errorf("--keep %q: give all (every script's videos and pictures) or failed (only those of scripts that did not pass)", k)
	}
	return nil
}

// prune removes a passed script's videos and its take's frame pictures,
// and says so in its entry. What it could not remove stays, listed, and
// is said in the script's log: the script still passed.
func prune(out string, e *Entry) {
	var errs []error
	var left []string
	for _, v := range e.Videos {
		p := v
		if !filepath.IsAbs(p) {
			p = filepath.Join(out, filepath.FromSlash(v))
		}
		if err := os.RemoveAll(p); err != nil { // a file, or a folder of PNG frames
			errs, left = append(errs, err), append(left, v)
		}
	}
	e.Videos = left
	if e.Take != "" {
		_, _, err := timeline.Prune(filepath.Join(out, filepath.FromSlash(e.Take)), "the script passed and its suite kept the pictures of failed scripts only (--keep failed)", time.Now())
		errs = append(errs, err)
		e.Pruned = err == nil
	}
	if err := errors.Join(errs...); err != nil && e.Log != "" {
		if f, ferr := os.OpenFile(filepath.Join(out, filepath.FromSlash(e.Log)), os.O_APPEND|os.O_WRONLY, 0); ferr == nil {
			fmt.Fprintf(f, "clapper: --keep failed: not all was removed: %v\n", err)
			f.Close()
		}
	}
}

// filmAttempt films l's script into out/rel, its log in run.log there,
// and returns what the attempt left as an entry (its paths relative to
// out; filmOne adds the script's own fields). A panic in the run fails
// this script, not the suite.
func filmAttempt(ctx context.Context, o Options, lend *browsers, w int, l Listed, out, rel string) (e Entry) {
	script, key := l.Script, l.Dir
	dir := filepath.Join(out, filepath.FromSlash(rel))
	e.Log = path.Join(rel, LogFile)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		e.Status, e.Exit, e.Error = Broken, exit.Failed, err.Error()
		return e
	}
	logf, err := os.Create(filepath.Join(dir, LogFile))
	if err != nil {
		e.Status, e.Exit, e.Error = Broken, exit.Failed, err.Error()
		return e
	}
	defer logf.Close()
	fo := o.Film
	fo.Script, fo.Out, fo.View, fo.JUnit = script, dir, true, ""
	switch {
	case l.lent.live:
		fo.Shared, err = lend.live.shared(ctx, fmt.Sprintf("%s (worker %d)", l.Name, w))
	case l.lent.scale > 0:
		var b shell
		if b, err = lend.studio.borrow(ctx, l.lent); err == nil {
			defer func() {
				if why := lend.studio.giveBack(b, l.lent); why != "" {
					fmt.Fprintln(logf, why)
				}
			}()
			fo.Studio = b.Endpoint()
		}
	}
	if err != nil {
		// As the run would have failed launching it: root without
		// --no-sandbox is a usage error, Ctrl-C an interruption.
		if errors.Is(err, session.ErrRootNeedsNoSandbox) {
			err = exit.Usagef("%w", err)
		}
		fmt.Fprintln(logf, err)
		e.Status, e.Exit = outcome(ctx, err)
		e.Error = err.Error()
		return e
	}
	if o.Baselines != "" {
		fo.Baseline = film.Baseline{Path: BaselineOf(o.Baselines, key), Update: o.Update, Diff: o.Diff}
	}
	fo.UI = film.NewLogUI(logf, func(p session.Progress) {
		if o.Display != nil {
			o.Display.Step(w, p)
		}
	})
	var res *film.Result
	func() {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("clapper broke filming this script: %v\n%s", p, debug.Stack())
				fmt.Fprintln(logf, err)
			}
		}()
		res, err = film.Film(ctx, fo)
	}()
	e.Status, e.Exit = outcome(ctx, err)
	if err != nil {
		e.Error = err.Error()
	}
	if res == nil {
		return e
	}
	e.Take = path.Join(rel, "take")
	if res.Report != "" {
		e.Report = path.Join(rel, "report.html")
	}
	for _, v := range res.Videos {
		if r, err := filepath.Rel(out, v); err == nil && filepath.IsLocal(r) {
			v = filepath.ToSlash(r)
		} else if abs, err := filepath.Abs(v); err == nil {
			v = abs // outside the suite's folder: never relative to it
		}
		e.Videos = append(e.Videos, v)
	}
	if tl := res.Timeline; tl != nil {
		e.Name = tl.Name
		e.TakeMs = time.Duration(tl.End - tl.Start).Milliseconds()
	}
	if f := res.Failed; f != nil {
		e.Failure = &Failure{Step: f.Index + 1, File: f.Pos.File, Line: f.Pos.Line, Col: f.Pos.Col, Kind: f.Kind, Error: f.Error()}
		e.Error = ""
	}
	e.Diff = readDiff(dir, rel)
	if ok, err := writeThumb(filepath.Join(dir, "take"), filepath.Join(dir, ThumbFile)); err == nil && ok {
		e.Thumb = path.Join(rel, ThumbFile)
	}
	return e
}

// LogFile is where a script's run writes what it says, in its folder;
// ThumbFile the suite's small picture of its last frame.
const (
	LogFile   = "run.log"
	ThumbFile = "thumb.jpg"
)

// outcome maps a run's error to its status and exit code. Pure.
func outcome(ctx context.Context, err error) (Status, int) {
	var ee *exit.Error
	switch {
	case err == nil:
		return Passed, exit.OK
	case ctx.Err() != nil:
		return Interrupted, exit.Failed
	case errors.As(err, &ee) && ee.Code == exit.Usage:
		return Broken, exit.Usage
	case errors.As(err, &ee) && ee.Code == exit.Failed:
		return Failed, exit.Failed
	}
	return Broken, exit.Failed
}

// BaselineOf is the baseline of the script whose output folder is key, in
// a folder of baselines: dir/<key>.clap.
func BaselineOf(dir, key string) string {
	return filepath.Join(dir, filepath.FromSlash(key)+".clap")
}

// readDiff reads the comparison a run with a baseline left in its folder
// (diff.json, beside diff.html); nil when there is none.
func readDiff(dir, rel string) *Diff {
	b, err := os.ReadFile(filepath.Join(dir, "diff.json"))
	if err != nil {
		return nil
	}
	var res compare.Result
	if json.Unmarshal(b, &res) != nil {
		return nil
	}
	d := &Diff{Findings: len(res.Findings), Fails: res.Fails()}
	if _, err := os.Stat(filepath.Join(dir, "diff.html")); err == nil {
		d.Report = path.Join(rel, "diff.html")
	}
	for _, f := range res.Findings {
		d.Lines = append(d.Lines, film.FindingLine(f))
		if len(d.Lines) == 5 {
			break
		}
	}
	return d
}
