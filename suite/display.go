package suite

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"

	"github.com/clapper-dev/clapper/session"
)

// PrintFailures writes a line for each script that did not pass, with the
// failing step's file:line:col.
func PrintFailures(w io.Writer, sum *Summary) {
	for _, e := range sum.Scripts {
		if e.Status == Passed || e.Status == Flaky {
			continue
		}
		switch {
		case e.Failure != nil && strings.HasPrefix(e.Failure.Error, e.Failure.Where()+": "):
			// The step's error names its place, step, label and outcome.
			fmt.Fprintf(w, "%s %s\n", e.Status, oneLine(e.Failure.Error))
		case e.Failure != nil:
			fmt.Fprintf(w, "%s %s: step %d (%s) failed: %s\n", e.Status, e.Failure.Where(), e.Failure.Step, e.Failure.Kind, oneLine(e.Failure.Error))
		default:
			fmt.Fprintf(w, "%s %s: %s\n", e.Status, e.Script, oneLine(e.Error))
		}
	}
}

// oneLine is the first line of s.
func oneLine(s string) string {
	for i, r := range s {
		if r == '\n' {
			return s[:i] + " …"
		}
	}
	return s
}

// Terminal shows a suite: a bar per worker on a terminal, a line per
// script's start and end elsewhere, nothing but the ends with --quiet.
type Terminal struct {
	mu    sync.Mutex
	quiet bool
	p     *mpb.Progress
	bars  map[int]*mpb.Bar
	what  map[int]string
	log   io.Writer
}

// NewTerminal is the display of a suite on w (clapper's standard error),
// with bars when w is a terminal.
func NewTerminal(quiet bool, w io.Writer) *Terminal {
	d := &Terminal{quiet: quiet, bars: map[int]*mpb.Bar{}, what: map[int]string{}, log: w}
	if f, ok := w.(*os.File); ok && !quiet && term.IsTerminal(int(f.Fd())) {
		d.p = mpb.New(mpb.WithOutput(w), mpb.WithWidth(30))
		d.log = d.p
	}
	return d
}

func (d *Terminal) linef(format string, args ...any) {
	fmt.Fprintf(d.log, "%s %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

func (d *Terminal) Started(w int, script string, attempt int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	what := script
	if attempt > 1 {
		what += fmt.Sprintf(" (retry %d)", attempt-1)
	}
	d.what[w] = what
	if d.quiet {
		return
	}
	if d.p == nil {
		d.linef("[%d] %s", w, what)
		return
	}
	if b := d.bars[w]; b != nil {
		b.Abort(true)
	}
	d.bars[w] = d.p.AddBar(0, mpb.PrependDecorators(decor.Name(fmt.Sprintf("[%d] %s ", w, what))), mpb.AppendDecorators(decor.CountersNoUnit("%d/%d steps")))
}

func (d *Terminal) Step(w int, p session.Progress) {
	d.mu.Lock()
	b := d.bars[w]
	d.mu.Unlock()
	if b != nil {
		b.SetTotal(int64(p.Steps), false)
		b.SetCurrent(int64(p.Step - 1))
	}
}

func (d *Terminal) Finished(w int, e Entry) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if b := d.bars[w]; b != nil {
		b.Abort(true)
		delete(d.bars, w)
	}
	dur := (time.Duration(e.DurationMs) * time.Millisecond).Round(100 * time.Millisecond)
	line := fmt.Sprintf("%-11s %s (%s)", e.Status, e.Script, dur)
	if e.Failure != nil {
		line += fmt.Sprintf(": step %d at %s", e.Failure.Step, e.Failure.Where())
	}
	if d.quiet && (e.Status == Passed || e.Status == Flaky) {
		return
	}
	d.linef("%s", line)
}

// Close waits for the bars to be drawn for the last time.
func (d *Terminal) Close() {
	if d.p != nil {
		d.p.Wait()
	}
}
