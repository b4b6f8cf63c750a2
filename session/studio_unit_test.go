package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/clapper-dev/clapper/recorder"
	"github.com/clapper-dev/clapper/scripts"
)

func TestStudioArgsGolden(t *testing.T) {
	cases := map[string]LaunchOptions{
		"chromium_studio.golden":        {Headless: true, NoSandbox: true, Width: 1280, Height: 720, Studio: true, Scale: 1},
		"chromium_studio_scale2.golden": {Headless: true, NoSandbox: true, Width: 1280, Height: 720, Studio: true, Scale: 2},
	}
	for name, o := range cases {
		args := ChromiumArgs(o, "/tmp/clapper-profile-X")
		for _, a := range args {
			if strings.HasPrefix(a, "--headless") {
				t.Errorf("%s: %s given to the headless shell", name, a)
			}
		}
		golden(t, name, strings.Join(args, "\n")+"\n")
	}
}

func TestChooseCapture(t *testing.T) {
	missing := errors.New("chromium-headless-shell not found on PATH")
	const shell = "/usr/bin/chromium-headless-shell"
	live, studio := scripts.CaptureLive, scripts.CaptureStudio
	// Every combination of what a run can say: the flag and the script
	// (unset, live, studio, unknown), a video or not, attached or not,
	// headed or not, the shell found or not, a Chromium named or not.
	for _, flag := range []string{"", live, studio, "film"} {
		for _, script := range []string{"", live, studio} {
			for bits := 0; bits < 32; bits++ {
				a := CaptureAsk{Flag: flag, Script: script, Video: bits&1 != 0, Attach: bits&2 != 0, Headed: bits&4 != 0, Chromium: bits&16 != 0}
				var shellErr error
				if bits&8 != 0 {
					shellErr = missing
				}
				got, err := ChooseCapture(a, shell, shellErr)
				name := fmt.Sprintf("%+v shell missing %v", a, shellErr != nil)
				asked := flag
				if asked == "" {
					asked = script
				}
				want, wantErr, note := live, false, false
				switch {
				case asked == "film":
					wantErr = true
				case asked == live:
				case asked == studio:
					wantErr = a.Attach || a.Headed || shellErr != nil
					want = studio
				case a.Video && !a.Attach && !a.Headed && !a.Chromium: // the default for videos
					want = studio
					if shellErr != nil {
						want, note = live, true
					}
				}
				switch {
				case wantErr:
					if err == nil {
						t.Errorf("%s: no error, chose %+v", name, got)
					}
				case err != nil:
					t.Errorf("%s: %v", name, err)
				case got.Mode != want || (got.Note != "") != note:
					t.Errorf("%s: chose %+v, want %s (note %v)", name, got, want, note)
				case got.Mode == studio && got.Shell != shell:
					t.Errorf("%s: shell %q", name, got.Shell)
				case note && !strings.Contains(got.Note, "apt-get install chromium-headless-shell"):
					t.Errorf("%s: the note does not say how to install the shell: %q", name, got.Note)
				}
			}
		}
	}
}

// The headless shell's absence says how to install it; ChooseCapture
// passes that on.
func TestFindShellSaysHowToInstall(t *testing.T) {
	t.Setenv(ShellEnv, "")
	t.Setenv("PATH", t.TempDir())
	_, err := FindShell("")
	if err == nil || !strings.Contains(err.Error(), "apt-get install chromium-headless-shell") {
		t.Errorf("FindShell without a shell: %v", err)
	}
	t.Setenv(ShellEnv, "/nowhere/shell")
	if _, err := FindShell(""); err == nil || !strings.Contains(err.Error(), ShellEnv) {
		t.Errorf("FindShell with a bad %s: %v", ShellEnv, err)
	}
}

// A virtual clock that stops for good (Chromium is gone) fires every timer
// on it; the waits on them must fail with its cause, not pass as if their
// time had come (a 10-minute pause "ended" when Chromium was killed).
func TestStoppedClockFailsWaits(t *testing.T) {
	gone := errors.New("begin frame: websocket closed")
	waits := map[string]func(ctx context.Context) error{
		"a sleep started before": nil,
		"a sleep started after": func(ctx context.Context) error {
			return sleep(ctx, 10*time.Minute)
		},
		"a poll": func(ctx context.Context) error {
			return poll(ctx, "wait for text", time.Second, func(context.Context) (bool, string, error) {
				return false, "not yet", nil
			})
		},
		"a step deadline": func(ctx context.Context) error {
			c, cancel := withStepTimeout(ctx, 10*time.Minute, errors.New("timeout 10m"))
			defer cancel()
			<-c.Done()
			return context.Cause(c)
		},
	}
	for name, wait := range waits {
		v := recorder.NewVirtualTime()
		ctx := withVirtual(context.Background(), v)
		res := make(chan error, 1)
		before := wait == nil
		if before {
			wait = func(ctx context.Context) error { return sleep(ctx, 10*time.Minute) }
			go func() { res <- wait(ctx) }()
			for v.Pending() == 0 {
				time.Sleep(time.Millisecond)
			}
		}
		v.Fail(gone)
		if !before {
			go func() { res <- wait(ctx) }()
		}
		if err := <-res; !errors.Is(err, gone) {
			t.Errorf("%s on a stopped clock ended with %v, want its cause", name, err)
		}
	}
	if err := sleep(withVirtual(context.Background(), recorder.NewVirtualTime()), 0); err != nil {
		t.Errorf("a sleep of nothing on a running clock: %v", err)
	}
}
