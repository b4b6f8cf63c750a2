package session

import (
	"errors"
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
	for _, c := range []struct {
		name, flag, script string
		attach             bool
		shellErr           error
		want               string // mode, or "error"
		note               bool
	}{
		{"nothing said", "", "", false, nil, DefaultCapture, false},
		{"script live", "", live, false, nil, live, false},
		{"script studio", "", studio, false, nil, studio, false},
		{"flag wins over script", live, studio, false, nil, live, false},
		{"flag studio over script live", studio, live, false, nil, studio, false},
		{"studio asked, no shell", studio, "", false, missing, "error", false},
		{"script studio, no shell", "", studio, false, missing, "error", false},
		{"live needs no shell", live, "", false, missing, live, false},
		{"studio asked, attached", studio, "", true, nil, "error", false},
		{"attached, live", "", "", true, nil, live, false},
		{"unknown mode", "film", "", false, nil, "error", false},
	} {
		got, err := ChooseCapture(c.flag, c.script, c.attach, shell, c.shellErr)
		switch {
		case c.want == "error":
			if err == nil {
				t.Errorf("%s: no error, chose %+v", c.name, got)
			}
		case err != nil:
			t.Errorf("%s: %v", c.name, err)
		case got.Mode != c.want || (got.Note != "") != c.note:
			t.Errorf("%s: chose %+v, want %s (note %v)", c.name, got, c.want, c.note)
		case got.Mode == studio && got.Shell != shell:
			t.Errorf("%s: shell %q", c.name, got.Shell)
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
