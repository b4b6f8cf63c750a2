package suite

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"sync"

	"github.com/clapper-dev/clapper/film"
	"github.com/clapper-dev/clapper/host"
	"github.com/clapper-dev/clapper/leases"
	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/session"
)

// liveBrowser is the one Chromium a suite's live scripts share: launched
// when the first of them starts, each run attached to it through the
// lease machinery (a tab of its own, in a window and a browser context of
// its own: cookies and storage never cross from one script to another),
// relaunched when it has died (a crash fails the scripts filming in it,
// not the ones after), and closed when the suite ends. A launch costs
// about as much as a short script; a suite of live scripts pays it once.
type liveBrowser struct {
	noSandbox bool
	mu        sync.Mutex
	b         *session.Browser
	dir       string // the lease store's folder, the suite's own
}

// lends says which browser the suite lends script s, run with o: none
// when it names a browser of its own (attach, claim, a Chromium, flags, a
// window to show) or its capture cannot be chosen; else the live browser
// the suite's live scripts share, or one of its studio shells at the
// script's device scale.
func lends(s *scripts.Script, o film.Options) lent {
	b := s.Browser
	if o.Shared.Browser != "" || o.Headed || o.Chromium != "" || b.Attach != "" || b.Claim != "" || b.Close != nil ||
		b.Chromium != "" || len(b.Args) > 0 || !b.Headless {
		return lent{}
	}
	shell, shellErr := session.FindShell(o.Shell)
	c, err := session.ChooseCapture(session.AskOf(s, session.CaptureAsk{Flag: o.Capture, Video: !o.NoVideo && len(s.Output.Video) > 0}), shell, shellErr)
	switch {
	case err != nil:
		return lent{}
	case c.Mode == scripts.CaptureLive:
		return lent{live: true}
	default:
		return lent{scale: cmp.Or(b.Scale, 1), width: b.Width, height: b.Height, noSandbox: o.NoSandbox || b.NoSandbox}
	}
}

// lent is the browser a suite lends a script's runs: the live browser
// (live), a studio shell launched as the script's run would launch its
// own (scale > 0: its device scale, its viewport as the window, without
// the sandbox when noSandbox), or none.
type lent struct {
	live          bool
	scale         float64
	width, height int
	noSandbox     bool
}

// shared returns how a run attaches to the suite's browser, launching it
// (again) when it is not running.
func (l *liveBrowser) shared(ctx context.Context, label string) (host.Shared, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b != nil {
		select {
		case <-l.b.Exited():
			l.b.Close()
			l.b = nil
		default:
		}
	}
	if l.dir == "" {
		d, err := os.MkdirTemp("", "clapper-suite-leases-")
		if err != nil {
			return host.Shared{}, fmt.Errorf("the suite's lease store: %w", err)
		}
		l.dir = d
	}
	if l.b == nil {
		b, err := session.Launch(ctx, session.LaunchOptions{Headless: true, NoSandbox: l.noSandbox, Width: 1280, Height: 720})
		if err != nil {
			return host.Shared{}, fmt.Errorf("the suite's browser: %w", err)
		}
		l.b = b
	}
	return host.Shared{Browser: l.b.Endpoint(), StateDir: l.dir, LeaseTTL: leases.DefaultTTL, Label: label, Isolate: true}, nil
}

// browsers are what a suite lends its scripts' runs: the live browser and
// the studio shells.
type browsers struct {
	live   *liveBrowser
	studio *studioShells
}

func (b *browsers) close() {
	b.live.close()
	b.studio.close()
}

// close closes the browser and removes the lease store.
func (l *liveBrowser) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b != nil {
		l.b.Close()
		l.b = nil
	}
	if l.dir != "" {
		os.RemoveAll(l.dir)
		l.dir = ""
	}
}
