package benchpage_test

import (
	"bytes"
	"context"
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

// The page as Chromium paints it decodes to the counter and clock the page
// itself reports, at scale 1 and 2.
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
	for _, scale := range []float64{1, 2} {
		if _, err := chromedp.Call(tab, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: 800, Height: 600, DeviceScaleFactor: scale}); err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(tab, chromedp.Navigate(srv.URL)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond)
		type state struct {
			Frames, Last float64
			Now          float64
		}
		before, err := chromedp.Run(tab, chromedp.Evaluate[state](`({frames: bench.frames, last: bench.last, now: performance.now()})`))
		if err != nil {
			t.Fatal(err)
		}
		shot, err := chromedp.Call(tab, page.CaptureScreenshot, page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatJpeg})
		if err != nil {
			t.Fatal(err)
		}
		after, err := chromedp.Run(tab, chromedp.Evaluate[state](`({frames: bench.frames, last: bench.last, now: performance.now()})`))
		if err != nil {
			t.Fatal(err)
		}
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
		ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
		if ms(c.Now) < before.Now-100 || ms(c.Now) > after.Now || c.RAF > c.Now+time.Millisecond {
			t.Errorf("scale %v: decoded times raf %v now %v outside the page's [%v, %v] ms", scale, c.RAF, c.Now, before.Now, after.Now)
		}
	}
}
