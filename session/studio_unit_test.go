package session

import (
	"errors"
	"fmt"
	"strings"
	"testing"

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
