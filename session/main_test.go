package session

import (
	"context"
	"flag"
	"strings"
	"sync"
	"testing"

	"github.com/clapper-dev/clapper/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestMain(m *testing.M) {
	flag.Parse()
	testenv.Main(withLive{m})
}

// withLive closes the package's live browser after the tests, before the
// leak checks.
type withLive struct{ m *testing.M }

func (w withLive) Run() int {
	code := w.m.Run()
	if live.b != nil {
		live.b.Close()
	}
	if studio.b != nil {
		studio.b.Close()
	}
	return code
}

// live is one Chromium for the package's live runs that are about what a
// run does in a page, not about launching, owning or losing a browser:
// they attach to it (each run opens its own tabs and closes them), as a
// run against a browser someone else started does, instead of launching
// one each.
var live struct {
	once sync.Once
	b    *Browser
	err  error
}

// liveEndpoint launches the package's live browser on first use and
// returns its endpoint.
func liveEndpoint(t *testing.T) string {
	t.Helper()
	testenv.Need(t, "chromium")
	live.once.Do(func() {
		live.b, live.err = Launch(context.Background(), LaunchOptions{Headless: true, NoSandbox: testenv.NoSandbox(), Width: 1280, Height: 720})
	})
	if live.err != nil {
		t.Fatalf("the package's live browser: %v", live.err)
	}
	return live.b.Endpoint()
}

// studio is one headless shell with the studio flags at scale 1, for the
// package's studio runs that are not about launching, owning or losing a
// browser: they attach to it (RunOptions.studioAttach) and open their own
// begin-frame tabs there, instead of launching one each.
var studio struct {
	once sync.Once
	b    *Browser
	err  error
}

// studioEndpoint launches the package's studio browser on first use and
// returns its endpoint.
func studioEndpoint(t *testing.T) string {
	t.Helper()
	testenv.Need(t, shellName)
	studio.once.Do(func() {
		shell, err := FindShell("")
		if err != nil {
			studio.err = err
			return
		}
		studio.b, studio.err = Launch(context.Background(), LaunchOptions{Path: shell, Headless: true, NoSandbox: testenv.NoSandbox(), Studio: true, Scale: 1, Width: 1280, Height: 720})
	})
	if studio.err != nil {
		t.Fatalf("the package's studio browser: %v", studio.err)
	}
	return studio.b.Endpoint()
}

// browsersLeft lists the live Chromium processes of the test binary's
// temporary folder but the package's shared browsers'.
func browsersLeft() []string {
	var out []string
	for _, p := range testenv.LiveBrowsers() {
		if (live.b == nil || !strings.Contains(p, live.b.Profile())) && (studio.b == nil || !strings.Contains(p, studio.b.Profile())) {
			out = append(out, p)
		}
	}
	return out
}
