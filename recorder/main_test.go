package recorder_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/internal/testbrowser"
	"github.com/clapper-dev/clapper/recorder"
	"github.com/clapper-dev/clapper/session"
	"github.com/clapper-dev/clapper/timeline"
)

// TestMain runs the tests in a private temporary folder and fails on any
// browser profile or process they leave behind; the package's browser is
// closed before those checks.
func TestMain(m *testing.M) { testbrowser.Main(m, chromium) }

const (
	viewW, viewH = 640, 360
)

// chromium is the one Chromium of the package's tests that capture a tab
// of it (each in a tab of its own, closed with the test). The test that
// kills Chromium launches its own (ownBrowserTab).
var chromium = testbrowser.New(viewW, viewH)

// browserTab opens a tab of the package's browser at the test viewport,
// closed with the test.
func browserTab(t *testing.T) context.Context {
	t.Helper()
	return tabOf(t, chromium.Shared(t))
}

// ownBrowserTab launches a browser for the test alone (closed with it), for
// a test that kills it, and opens a tab at the test viewport.
func ownBrowserTab(t *testing.T) (context.Context, *session.Browser) {
	t.Helper()
	b := chromium.Own(t)
	return tabOf(t, b), b
}

func tabOf(t *testing.T, b *session.Browser) context.Context {
	t.Helper()
	tab, closeTab, err := b.NewTab(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(closeTab)
	if _, err := chromedp.Call(tab, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: viewW, Height: viewH, DeviceScaleFactor: 1}); err != nil {
		t.Fatal(err)
	}
	return tab
}

// take is a take folder being recorded by a test.
type take struct {
	dir string
	log *timeline.FrameLog
}

func newTake(t *testing.T) *take {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "take")
	log, err := timeline.CreateTake(dir)
	if err != nil {
		t.Fatal(err)
	}
	return &take{dir: dir, log: log}
}

// options returns capture options writing into tk.
func (tk *take) options(initialURL string) recorder.Options {
	return recorder.Options{Dir: tk.dir, Log: tk.log, Clock: recorder.NewClock(), Tab: "main", MaxWidth: viewW, MaxHeight: viewH, InitialURL: initialURL}
}

// finish writes the timeline of a stopped capture and opens the take as a
// reader would, validating it.
func (tk *take) finish(t *testing.T, res recorder.Result) (*timeline.Take, []timeline.Frame) {
	t.Helper()
	if err := tk.log.Close(); err != nil {
		t.Fatal(err)
	}
	tl := &timeline.Timeline{
		Name: t.Name(), Tool: "recorder test", Outcome: "ok", Clock: res.Clock,
		Viewport: timeline.Viewport{Width: viewW, Height: viewH, Scale: 1},
		Start:    res.Capture.Started, End: res.Capture.Ended, Capture: res.Capture, Boundaries: res.Boundaries,
		Steps: []timeline.Step{}, Receipts: []timeline.Receipt{}, Holds: []timeline.Hold{},
	}
	if err := timeline.WriteTimeline(tk.dir, tl); err != nil {
		t.Fatal(err)
	}
	opened, err := timeline.Open(tk.dir)
	if err != nil {
		t.Fatalf("the take is not readable: %v", err)
	}
	if err := opened.Validate(); err != nil {
		t.Fatalf("take: %v", err)
	}
	var frames []timeline.Frame
	for fr, err := range opened.Frames() {
		if err != nil {
			t.Fatal(err)
		}
		frames = append(frames, fr)
	}
	return opened, frames
}
