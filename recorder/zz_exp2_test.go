package recorder_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/internal/benchpage"
	"github.com/clapper-dev/clapper/session"
)

func TestExpCapture(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	srv := &http.Server{Handler: benchpage.Handler()}
	go srv.Serve(ln)
	defer srv.Close()
	args := strings.Fields(os.Getenv("EXP_ARGS"))
	w, h := 1280, 720
	if os.Getenv("EXP_SIZE") == "1080" {
		w, h = 1920, 1080
	}
	b, err := session.Launch(context.Background(), session.LaunchOptions{Headless: true, NoSandbox: true, Width: w, Height: h, Args: args})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	tab, cl, _ := b.NewTab()
	defer cl()
	chromedp.Call(tab, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: int64(w), Height: int64(h), DeviceScaleFactor: 1})
	chromedp.Do(tab, chromedp.Navigate("http://"+ln.Addr().String()))
	time.Sleep(time.Second)
	q := int64(85)
	if v := os.Getenv("EXP_Q"); v != "" {
		n, _ := strconv.Atoi(v)
		q = int64(n)
	}
	inflight, _ := strconv.Atoi(os.Getenv("EXP_INFLIGHT"))
	var n int
	var lat []float64
	done := make(chan struct{})
	sid := make(chan int64, 100)
	chromedp.Listen(tab, func(ev any) {
		if f, ok := ev.(*page.EventScreencastFrame); ok {
			n++
			lat = append(lat, float64(time.Now().UnixNano())/1e9-float64(f.Metadata.Timestamp))
			select {
			case sid <- f.SessionID:
			default:
			}
		}
	})
	go func() {
		for {
			select {
			case id := <-sid:
				chromedp.Call(tab, page.ScreencastFrameAck, page.ScreencastFrameAckParams{SessionID: id})
			case <-done:
				return
			}
		}
	}()
	if os.Getenv("EXP_NOCAP") == "" {
		chromedp.Call(tab, page.StartScreencast, page.StartScreencastParams{Format: page.StartScreencastFormatJpeg, Quality: &q, MaxWidth: int64(w), MaxHeight: int64(h), MaxFramesInFlight: int64(inflight)})
	}
	time.Sleep(500 * time.Millisecond)
	f0, _ := chromedp.Run(tab, chromedp.Evaluate[float64](`bench.frames`))
	p0 := procCPU(b.Pid())
	n0 := n
	var browserPid, gpuPid, rendPid string
	for k := range p0 {
		pid := k[strings.LastIndexByte(k, '/')+1:]
		switch {
		case strings.HasPrefix(k, "browser/"):
			browserPid = pid
		case strings.HasPrefix(k, "gpu-process/"):
			gpuPid = pid
		case strings.HasPrefix(k, "renderer/"):
			rendPid = pid
		}
	}
	tb0, tg0, tr0 := threadCPU(browserPid), threadCPU(gpuPid), threadCPU(rendPid)
	time.Sleep(4 * time.Second)
	f1, _ := chromedp.Run(tab, chromedp.Evaluate[float64](`bench.frames`))
	p1 := procCPU(b.Pid())
	tb1, tg1, tr1 := threadCPU(browserPid), threadCPU(gpuPid), threadCPU(rendPid)
	n1 := n
	close(done)
	sort.Float64s(lat)
	lat = append(lat, 0)
	fmt.Printf("page %.1f fps, screencast %.1f fps, latency(wall) p50 %.0f ms\n", (f1-f0)/4, float64(n1-n0)/4, 1000*lat[len(lat)/2])
	for k, v := range p1 {
		if d := (v - p0[k]).Seconds() / 4; d > 0.02 {
			fmt.Printf("  %-40s %4.0f%%\n", k, 100*d)
		}
	}
	for name, pair := range map[string][2]map[string]time.Duration{"browser": {tb0, tb1}, "gpu": {tg0, tg1}, "renderer": {tr0, tr1}} {
		for k, v := range pair[1] {
			if d := (v - pair[0][k]).Seconds() / 4; d > 0.03 {
				fmt.Printf("    %s thread %-25s %4.0f%%\n", name, k, 100*d)
			}
		}
	}
}
