package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
)

// screenshot saves a PNG of the viewport, or of an element, beside the take.
func (r *run) screenshot(ctx context.Context, tab *Tab, a scripts.Screenshot, rec *timeline.Step) error {
	rec.Target = a.File
	params := page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng}
	if a.Target != nil {
		act, err := r.actionable(ctx, tab, *a.Target, forLook, rec)
		if err != nil {
			return err
		}
		params.Clip = &page.Viewport{X: act.Box.X, Y: act.Box.Y, Width: act.Box.W, Height: act.Box.H, Scale: 1}
	}
	if v := virtualOf(ctx); v != nil {
		v.Disturb() // the screenshot draws outside the frame pump
	}
	shot, err := chromedp.Call(ctx, page.CaptureScreenshot, params)
	if err != nil {
		return dispatchErr(err)
	}
	path := a.File
	if !filepath.IsAbs(path) {
		path = filepath.Join(r.outDir(), path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return undispatched(err)
	}
	if err := os.WriteFile(path, shot.Data, 0o644); err != nil {
		return undispatched(fmt.Errorf("save screenshot: %w", err))
	}
	return nil
}

// outDir is where screenshots and videos go: beside the take.
func (r *run) outDir() string {
	if r.o.OutDir != "" {
		return r.o.OutDir
	}
	return filepath.Dir(filepath.Clean(r.o.TakeDir))
}

// eval runs a script author's JavaScript in the page's own world, as the
// body of an async function (so it may await and return), and waits for
// it. The newline before the closing brace keeps a trailing // comment
// from swallowing it.
func (r *run) eval(ctx context.Context, a scripts.Eval, rec *timeline.Step) error {
	if !a.Secret {
		rec.Target = truncate(a.JS, 200)
	}
	_, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void]("(async () => {\n"+a.JS+"\n})()", chromedp.EvalAwaitPromise))
	switch {
	case err == nil:
		return nil
	case isException(err): // the code threw: what it did before is the page's business
		return &StepError{Outcome: timeline.OutcomeRejected, Err: fmt.Errorf("eval: %s", r.s.Mask(err.Error()))}
	case ctx.Err() != nil: // still running when time was up
		return &StepError{Outcome: timeline.OutcomeUnknown, Err: fmt.Errorf("eval: %w", context.Cause(ctx))}
	}
	return dispatchErr(fmt.Errorf("eval: %s", r.s.Mask(err.Error())))
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
