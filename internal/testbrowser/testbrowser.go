// Package testbrowser is the one Chromium a test binary's tests share,
// each in tabs of its own: launched on first use and closed after the
// tests, before testenv's leak checks. A launch costs about as much CPU as
// a short capture, so tests that are not about launching share one. Only
// tests import it; session's own tests, which it imports, keep theirs
// (session/main_test.go, a live Chromium and a studio shell).
package testbrowser

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/clapper-dev/clapper/internal/testenv"
	"github.com/clapper-dev/clapper/session"
)

// Browser is a headless Chromium of a given window size, shared by the
// tests of one binary.
type Browser struct {
	width, height int
	once          sync.Once
	b             *session.Browser
	err           error
}

// New is a shared browser with a window of width x height, not launched
// yet.
func New(width, height int) *Browser { return &Browser{width: width, height: height} }

// Shared returns the browser, launching it on first use; t fails when it
// cannot.
func (s *Browser) Shared(t testing.TB) *session.Browser {
	t.Helper()
	testenv.Need(t, "chromium")
	s.once.Do(func() { s.b, s.err = s.launch() })
	if s.err != nil {
		t.Fatalf("the tests' shared browser: %v", s.err)
	}
	return s.b
}

// Own launches a browser like it for test t alone (one it may kill),
// closed with the test.
func (s *Browser) Own(t testing.TB) *session.Browser {
	t.Helper()
	testenv.Need(t, "chromium")
	b, err := s.launch()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func (s *Browser) launch() (*session.Browser, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	return session.Launch(ctx, session.LaunchOptions{Headless: true, NoSandbox: testenv.NoSandbox(), Width: s.width, Height: s.height})
}

// close closes the browser if it was launched.
func (s *Browser) close() {
	if s.b != nil {
		s.b.Close()
	}
}

// Main runs the tests of m as testenv.Main does, and closes the shared
// browsers bs after them, before the leak checks.
func Main(m *testing.M, bs ...*Browser) { testenv.Main(withBrowsers{m, bs}) }

type withBrowsers struct {
	m  *testing.M
	bs []*Browser
}

func (w withBrowsers) Run() int {
	code := w.m.Run()
	for _, b := range w.bs {
		b.close()
	}
	return code
}
