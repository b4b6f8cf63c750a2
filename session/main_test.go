package session

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clapper-dev/clapper/internal/testenv"
	"github.com/clapper-dev/clapper/scripts"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestMain(m *testing.M) {
	flag.Parse()
	testenv.Main(withLive{m})
}

// withLive closes the package's shared browsers after the tests, before
// the leak checks.
type withLive struct{ m *testing.M }

func (w withLive) Run() int {
	code := w.m.Run()
	for _, p := range packageBrowsers {
		if p.b != nil {
			p.b.Close()
		}
	}
	return code
}

// packageBrowser is one browser for the package's runs that are about
// what a run does in a page, not about launching, owning or losing a
// browser: they attach to it (each run opens its own tabs and closes
// them), as a run against a browser someone else started does, instead of
// launching one each. It is launched on first use.
type packageBrowser struct {
	name, need string // what it is, for messages; the binary it needs
	launch     func() (*Browser, error)
	once       sync.Once
	b          *Browser
	err        error
}

// endpoint launches the browser on first use and returns its endpoint.
func (p *packageBrowser) endpoint(t *testing.T) string {
	t.Helper()
	testenv.Need(t, p.need)
	p.once.Do(func() { p.b, p.err = p.launch() })
	if p.err != nil {
		t.Fatalf("the package's %s browser: %v", p.name, p.err)
	}
	return p.b.Endpoint()
}

// live is a Chromium for live runs; studio a headless shell with the
// studio flags at scale 1, for studio runs (RunOptions.Studio),
// which open their own begin-frame tabs there.
var (
	live = packageBrowser{name: "live", need: "chromium", launch: func() (*Browser, error) {
		b, err := Launch(context.Background(), LaunchOptions{Headless: true, NoSandbox: testenv.NoSandbox(), Width: 1280, Height: 720})
		if err != nil {
			return nil, err
		}
		if liveStart, err = launchPages(b); err != nil {
			b.Close()
			return nil, err
		}
		return b, nil
	}}
	studio = packageBrowser{name: "studio", need: shellName, launch: func() (*Browser, error) {
		shell, err := FindShell("")
		if err != nil {
			return nil, err
		}
		return Launch(context.Background(), StudioLaunch(shell, testenv.NoSandbox(), 1, 1280, 720))
	}}
)

// liveStart are the ids of the live browser's pages at its launch (its
// first blank tab), which the tests of a browser someone else started find
// it with (sharedBrowser).
var liveStart []string

// launchPages waits until a browser just launched lists its first page
// (Launch returns once DevTools answers, which can be before), and returns
// the ids of its pages.
func launchPages(b *Browser) ([]string, error) {
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		pages, err := b.Pages(context.Background())
		if err == nil && len(pages) > 0 {
			var ids []string
			for _, pg := range pages {
				ids = append(ids, pg.ID)
			}
			return ids, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("no page listed 20 s after the launch (%v)", err)
		}
	}
}

// packageBrowsers are both, for closing them and telling them apart.
var packageBrowsers = []*packageBrowser{&live, &studio}

func liveEndpoint(t *testing.T) string   { t.Helper(); return live.endpoint(t) }
func studioEndpoint(t *testing.T) string { t.Helper(); return studio.endpoint(t) }

// browsersLeft lists the live Chromium processes of the test binary's
// temporary folder but the package's shared browsers'.
func browsersLeft() []string {
	var out []string
	for _, p := range testenv.LiveBrowsers() {
		if !slices.ContainsFunc(packageBrowsers, func(pb *packageBrowser) bool { return pb.b != nil && strings.Contains(p, pb.b.Profile()) }) {
			out = append(out, p)
		}
	}
	return out
}

// smallByDefault gives a script that names no viewport 640x360: the
// package's scripts whose subject is not the page's size draw, capture
// and encode a quarter of the default's pixels in every run (a run at
// 1280x720 took about half again the CPU of one at 640x360 here).
func smallByDefault(src string, s *scripts.Script) {
	if !strings.Contains(src, "viewport") {
		s.Browser.Width, s.Browser.Height = 640, 360
	}
}
