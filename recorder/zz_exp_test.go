package recorder_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/internal/benchpage"
	"github.com/clapper-dev/clapper/session"
)

func groupCPU(pgid int) time.Duration {
	ents, _ := os.ReadDir("/proc")
	var ticks int64
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		f := strings.Fields(s[i+1:])
		if g, _ := strconv.Atoi(f[2]); g != pgid {
			continue
		}
		u, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		ticks += u + st
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}

func TestExpIdle(t *testing.T) {
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
	f0, _ := chromedp.Run(tab, chromedp.Evaluate[float64](`bench.frames`))
	c0 := groupCPU(b.Pid())
	time.Sleep(3 * time.Second)
	f1, _ := chromedp.Run(tab, chromedp.Evaluate[float64](`bench.frames`))
	c1 := groupCPU(b.Pid())
	fmt.Printf("no capture: page %.1f frames/s, chromium CPU %.0f%%\n", (f1-f0)/3, 100*(c1-c0).Seconds()/3)
}

func procCPU(pgid int) map[string]time.Duration {
	out := map[string]time.Duration{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		f := strings.Fields(s[i+1:])
		if g, _ := strconv.Atoi(f[2]); g != pgid {
			continue
		}
		u, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		kind := "browser"
		for _, a := range strings.Fields(strings.ReplaceAll(string(cmd), "\x00", " ")) {
			if strings.HasPrefix(a, "--type=") {
				kind = strings.TrimPrefix(a, "--type=")
			}
			if strings.HasPrefix(a, "--utility-sub-type=") {
				kind += ":" + strings.TrimPrefix(a, "--utility-sub-type=")
			}
		}
		out[kind+"/"+e.Name()] = time.Duration(u+st) * 10 * time.Millisecond
	}
	return out
}

func threadCPU(pid string) map[string]time.Duration {
	out := map[string]time.Duration{}
	ents, _ := os.ReadDir("/proc/" + pid + "/task")
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", pid, "task", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		j := strings.IndexByte(s, '(')
		i := strings.LastIndexByte(s, ')')
		name := s[j+1 : i]
		f := strings.Fields(s[i+1:])
		u, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		out[name] += time.Duration(u+st) * 10 * time.Millisecond
	}
	return out
}
