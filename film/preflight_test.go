package film

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/clapper-dev/clapper/internal/exit"
	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/session"
)

func TestPreflight(t *testing.T) {
	errChromium := errors.New("chromium not found: install it")
	errFFmpeg := errors.New("ffmpeg not found: install it")
	look := func(have bool, err error, seen *string) func(string) (string, error) {
		return func(p string) (string, error) {
			*seen = p
			if have {
				return "/usr/bin/x", nil
			}
			return "", err
		}
	}
	cases := []struct {
		name             string
		n                runNeeds
		euid             int
		chromium, ffmpeg bool
		want             error
		code             int
	}{
		{"all there", runNeeds{launch: true, render: true}, 1000, true, true, nil, 0},
		{"root with the choice", runNeeds{launch: true, noSandbox: true, render: true}, 0, true, true, nil, 0},
		{"root without the choice", runNeeds{launch: true, render: true}, 0, true, true, session.ErrRootNeedsNoSandbox, exit.Usage},
		{"root without the choice, and no Chromium: the sandbox is said first", runNeeds{launch: true}, 0, false, true, session.ErrRootNeedsNoSandbox, exit.Usage},
		{"no Chromium", runNeeds{launch: true, render: true}, 1000, false, true, errChromium, exit.Failed},
		{"no ffmpeg", runNeeds{launch: true, render: true}, 1000, true, false, errFFmpeg, exit.Failed},
		{"no ffmpeg, nothing rendered", runNeeds{launch: true}, 1000, true, false, nil, 0},
		{"attached: no Chromium and root need nothing", runNeeds{render: true}, 0, false, true, nil, 0},
		{"attached, no ffmpeg", runNeeds{render: true}, 0, false, false, errFFmpeg, exit.Failed},
	}
	for _, c := range cases {
		var seenC, seenF string
		c.n.chromium, c.n.ffmpeg = "/opt/chrome", "/opt/ffmpeg"
		err := preflight(c.n, c.euid, look(c.chromium, errChromium, &seenC), look(c.ffmpeg, errFFmpeg, &seenF))
		if !errors.Is(err, c.want) || (c.want == nil) != (err == nil) || codeOf(err) != c.code {
			t.Errorf("%s: %v (exit %d), want %v (exit %d)", c.name, err, codeOf(err), c.want, c.code)
		}
		if seenC != "" && seenC != "/opt/chrome" || seenF != "" && seenF != "/opt/ffmpeg" {
			t.Errorf("%s: looked up %q and %q, not the paths the run was given", c.name, seenC, seenF)
		}
	}
}

// The flag overrides the script's Chromium; a script that attaches
// launches none; --no-video or a script without videos renders nothing.
func TestNeedsOf(t *testing.T) {
	s := loadTestScript(t, "name: n\nbrowser: {chromium: /script/chrome, sandbox: false}\nsteps:\n  - goto: about:blank\n")
	if n := needsOf(s, Options{}, "ff"); !n.launch || n.chromium != "/script/chrome" || !n.noSandbox || !n.render || n.ffmpeg != "ff" {
		t.Errorf("script's own: %+v", n)
	}
	if n := needsOf(s, Options{Chromium: "/flag/chrome", NoVideo: true}, "ff"); n.chromium != "/flag/chrome" || n.render {
		t.Errorf("flags: %+v", n)
	}
	a := loadTestScript(t, "name: n\nbrowser: {attach: \"ws://127.0.0.1:9222/devtools/browser/x\"}\nsteps:\n  - goto: about:blank\n")
	if n := needsOf(a, Options{NoSandbox: true}, ""); n.launch {
		t.Errorf("attached: %+v", n)
	}
}

func loadTestScript(t *testing.T, src string) *scripts.Script {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := loadScript(path, nil, false, "", io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// codeOf is the exit code an error carries (0 for none, 1 without one).
func codeOf(err error) int {
	var e *exit.Error
	switch {
	case err == nil:
		return exit.OK
	case errors.As(err, &e):
		return e.Code
	}
	return exit.Failed
}
