package benchpage_test

import (
	"bytes"
	"context"
	"fmt"
	"image/jpeg"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/internal/benchpage"
	"github.com/clapper-dev/clapper/internal/testenv"
	"github.com/clapper-dev/clapper/session"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// logSize is page.html's LOG: how many painted frames the page remembers.
const logSize = 1024

// The page as Chromium paints it decodes to the counter and clock the page
// itself recorded for that frame, at scale 1 and 2: the decoded frame is
// one the page painted between the readings before and after the
// screenshot, and its times are exactly those the page painted.
func TestPageInChromium(t *testing.T) {
	testenv.Need(t, "chromium")
	srv := httptest.NewServer(benchpage.Handler())
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	b, err := session.Launch(ctx, session.LaunchOptions{Headless: true, NoSandbox: testenv.NoSandbox(), Width: 800, Height: 600})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	tab, closeTab, err := b.NewTab(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer closeTab()
	type state struct {
		Frames, Last float64
	}
	read := func() state {
		t.Helper()
		s, err := chromedp.Run(tab, chromedp.Evaluate[state](`({frames: bench.frames, last: bench.last})`))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, scale := range []float64{1, 2} {
		if _, err := chromedp.Call(tab, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: 800, Height: 600, DeviceScaleFactor: scale}); err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(tab, chromedp.Navigate(srv.URL)); err != nil {
			t.Fatal(err)
		}
		// The page is animating once it has painted a few frames.
		for deadline := time.Now().Add(30 * time.Second); read().Frames < 3; {
			if time.Now().After(deadline) {
				t.Fatalf("scale %v: the page painted fewer than 3 frames in 30s", scale)
			}
			time.Sleep(10 * time.Millisecond)
		}
		before := read()
		shot, err := chromedp.Call(tab, page.CaptureScreenshot, page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatJpeg})
		if err != nil {
			t.Fatal(err)
		}
		after := read()
		img, err := jpeg.Decode(bytes.NewReader(shot.Data))
		if err != nil {
			t.Fatal(err)
		}
		c, err := benchpage.Decode(img, float64(img.Bounds().Dx())/800)
		if err != nil {
			t.Fatalf("scale %v: %v", scale, err)
		}
		if float64(c.Counter) < before.Last || float64(c.Counter) > after.Last {
			t.Errorf("scale %v: decoded counter %d outside the page's [%v, %v]", scale, c.Counter, before.Last, after.Last)
		}
		if after.Last-float64(c.Counter) >= logSize {
			t.Fatalf("scale %v: the page painted %v frames after the decoded one, more than it remembers", scale, after.Last-float64(c.Counter))
		}
		painted, err := chromedp.Run(tab, chromedp.Evaluate[[3]int64](fmt.Sprintf(`bench.log[%d %% %d]`, c.Counter, logSize)))
		if err != nil {
			t.Fatal(err)
		}
		got := [3]int64{int64(c.Counter), c.RAF.Microseconds(), c.Now.Microseconds()}
		if got != painted {
			t.Errorf("scale %v: decoded [counter, rAF µs, now µs] %v, the page painted %v", scale, got, painted)
		}
	}
}
