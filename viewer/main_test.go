package viewer_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/clapper-dev/clapper/internal/testenv"
	"github.com/clapper-dev/clapper/session"
)

// The leak checks catch a Chromium or profile the browser tests leave;
// the package's browser is closed before them.
func TestMain(m *testing.M) { testenv.Main(withBrowser{m}) }

type withBrowser struct{ m *testing.M }

func (w withBrowser) Run() int {
	code := w.m.Run()
	if shared.b != nil {
		shared.b.Close()
	}
	return code
}

// shared is the one Chromium the package's tests open their reports in,
// each in a tab of its own, launched on first use.
var shared struct {
	once sync.Once
	b    *session.Browser
	err  error
}

func sharedBrowser(t *testing.T) *session.Browser {
	t.Helper()
	testenv.Need(t, "chromium")
	shared.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		shared.b, shared.err = session.Launch(ctx, session.LaunchOptions{Headless: true, NoSandbox: testenv.NoSandbox(), Width: 1280, Height: 900})
	})
	if shared.err != nil {
		t.Fatalf("the package's browser: %v", shared.err)
	}
	return shared.b
}
