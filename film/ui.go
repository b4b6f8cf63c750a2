package film

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"

	"github.com/clapper-dev/clapper/session"
)

// UI shows progress: bars on a terminal, quiet timestamped lines elsewhere
// (CI logs), nothing with --quiet.
type UI struct {
	mu    sync.Mutex
	tty   bool
	quiet bool
	out   io.Writer // results (standard output)
	log   io.Writer // progress and log lines
	errw  io.Writer // what is said even when quiet: failures, warnings
	// onStep, when set, is told of each step as well (a suite's display).
	onStep func(session.Progress)
	p      *mpb.Progress
	steps  *mpb.Bar
	what   atomic.Value // string: the running step, shown beside the bar
}

// NewUI says results on out and progress, log lines and warnings on
// errw; bars only when errw is a terminal.
func NewUI(quiet bool, out, errw io.Writer) *UI {
	f, ok := errw.(*os.File)
	return &UI{tty: ok && term.IsTerminal(int(f.Fd())), quiet: quiet, out: out, log: errw, errw: errw}
}

// NewLogUI writes everything a run says to w, as timestamped lines with
// no bars (a suite keeps each script's in its folder), and tells onStep
// (may be nil) of each step.
func NewLogUI(w io.Writer, onStep func(session.Progress)) *UI {
	return &UI{out: w, log: w, errw: w, onStep: onStep}
}

// Warnf writes a line that is said even when quiet ("clapper: " and the
// message).
func (u *UI) Warnf(format string, args ...any) {
	u.mu.Lock()
	defer u.mu.Unlock()
	fmt.Fprintf(u.errw, "clapper: "+format+"\n", args...)
}

// Errorln writes an error's whole text, as it is, even when quiet.
func (u *UI) Errorln(s string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	fmt.Fprintln(u.errw, s)
}

// logf writes a quiet log line (not on a terminal while bars are drawn).
func (u *UI) Logf(format string, args ...any) {
	if u.quiet {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.tty && u.p != nil {
		return
	}
	fmt.Fprintf(u.log, "%s %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// printf writes a result line to standard output.
func (u *UI) Printf(format string, args ...any) { fmt.Fprintf(u.out, format, args...) }

// step reports a run's progress; called from the run goroutine.
func (u *UI) Step(p session.Progress) {
	if u.onStep != nil {
		u.onStep(p)
	}
	if u.quiet {
		return
	}
	what := p.Kind
	if p.Label != "" {
		what += " · " + p.Label
	}
	if !u.tty {
		u.Logf("step %d/%d %s (frames %d)", p.Step, p.Steps, what, p.Capture.Delivered)
		return
	}
	u.what.Store(fmt.Sprintf("%s (%d frames)", what, p.Capture.Delivered))
	u.mu.Lock()
	if u.p == nil {
		u.p = mpb.New(mpb.WithOutput(u.log), mpb.WithWidth(40))
		u.steps = u.p.AddBar(int64(p.Steps),
			mpb.PrependDecorators(decor.Name("run  "), decor.CountersNoUnit("%d/%d steps")),
			mpb.AppendDecorators(decor.Any(func(decor.Statistics) string {
				s, _ := u.what.Load().(string)
				return s
			}, decor.WCSyncSpaceR)))
	}
	bar := u.steps
	u.mu.Unlock()
	bar.SetCurrent(int64(p.Step - 1))
}

// doneSteps finishes the step bar.
func (u *UI) DoneSteps() {
	u.mu.Lock()
	p, bar := u.p, u.steps
	u.p, u.steps = nil, nil
	u.mu.Unlock()
	if p != nil {
		bar.IncrBy(1) // the last step reached has ended too
		bar.SetTotal(-1, true)
		p.Wait()
	}
}

// Bar is one bar (or its quiet stand-in) for a counted job.
type Bar struct {
	u    *UI
	name string
	p    *mpb.Progress
	bar  *mpb.Bar
	last time.Time
}

func (u *UI) Bar(name string, total int) *Bar {
	b := &Bar{u: u, name: name}
	if u.quiet || !u.tty {
		return b
	}
	b.p = mpb.New(mpb.WithOutput(u.log), mpb.WithWidth(40))
	b.bar = b.p.AddBar(int64(total), mpb.PrependDecorators(decor.Name(name+" ")),
		mpb.AppendDecorators(decor.Percentage(), decor.Name(" "), decor.EwmaETA(decor.ET_STYLE_GO, 30)))
	return b
}

// set is the progress callback: done of total frames.
func (b *Bar) Set(done, total int) {
	if b.bar != nil {
		b.bar.SetTotal(int64(total), false)
		b.bar.SetCurrent(int64(done))
		return
	}
	if b.u.quiet || time.Since(b.last) < 2*time.Second && done != total {
		return
	}
	b.last = time.Now()
	b.u.Logf("%s: %d/%d frames", b.name, done, total)
}

func (b *Bar) Done() {
	if b.bar != nil {
		b.bar.SetTotal(-1, true)
		b.p.Wait()
	}
}
