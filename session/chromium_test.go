package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs:\n--- want\n%s\n--- got\n%s", name, want, got)
	}
}

func TestChromiumArgsGolden(t *testing.T) {
	cases := map[string]LaunchOptions{
		"chromium_headless_nosandbox.golden": {Headless: true, NoSandbox: true, Width: 1280, Height: 720},
		"chromium_sandbox_extra.golden":      {Headless: false, Width: 1920, Height: 1080, Args: []string{"--lang=fr", "--disable-features=Foo, Bar"}},
	}
	for name, o := range cases {
		golden(t, name, strings.Join(ChromiumArgs(o, "/tmp/clapper-profile-X"), "\n")+"\n")
	}
}

// A caller's --disable-features joins clapper's list instead of replacing
// it (Chromium reads only the last one); other flags pass as given.
func TestSplitDisabledFeatures(t *testing.T) {
	for _, c := range []struct {
		in             []string
		rest, features string
	}{
		{nil, "", ""},
		{[]string{"--lang=fr"}, "--lang=fr", ""},
		{[]string{"--disable-features=A"}, "", "A"},
		{[]string{"--disable-features=A,,B ", "--x", "--disable-features=C"}, "--x", "A,B,C"},
		{[]string{"--disable-features="}, "", ""},
		{[]string{"--enable-features=A"}, "--enable-features=A", ""},
	} {
		rest, features := splitDisabledFeatures(c.in)
		if strings.Join(rest, " ") != c.rest || strings.Join(features, ",") != c.features {
			t.Errorf("splitDisabledFeatures(%q) = %q, %q; want %q, %q", c.in, rest, features, c.rest, c.features)
		}
	}
	n := 0
	for _, a := range ChromiumArgs(LaunchOptions{Args: []string{"--disable-features=Foo"}}, "/p") {
		if strings.HasPrefix(a, "--disable-features=") {
			n++
			if !strings.HasSuffix(a, ",Foo") || !strings.Contains(a, "WebUIOmniboxPopup") {
				t.Errorf("merged flag %q", a)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d --disable-features flags, want 1", n)
	}
}

func TestChromiumArgsSandboxIsExplicit(t *testing.T) {
	for _, a := range ChromiumArgs(LaunchOptions{Headless: true}, "/p") {
		if a == "--no-sandbox" {
			t.Fatal("--no-sandbox present without the choice")
		}
	}
}

func TestCheckEndpoint(t *testing.T) {
	ok := []string{"ws://127.0.0.1:9222/devtools/browser/abc", "ws://localhost:9222/x", "ws://[::1]:9222/x", "ws://127.1.2.3:1/x"}
	bad := []string{"wss://127.0.0.1:9222/x", "http://127.0.0.1:9222/", "ws://10.0.0.1:9222/x", "ws://example.com:9222/x",
		"ws://user:pw@127.0.0.1:9222/x", "ws://127.0.0.1:9222/x?token=1", "ws://127.0.0.1:9222/x#f", "::::"}
	for _, e := range ok {
		if err := CheckEndpoint(e); err != nil {
			t.Errorf("%s refused: %v", e, err)
		}
	}
	for _, e := range bad {
		if err := CheckEndpoint(e); err == nil {
			t.Errorf("%s accepted", e)
		}
	}
}

// The root check is a pure function of the user and the choice.
func TestCheckSandbox(t *testing.T) {
	for _, c := range []struct {
		euid      int
		noSandbox bool
		refused   bool
	}{{0, false, true}, {0, true, false}, {1000, false, false}, {1000, true, false}} {
		err := checkSandbox(c.euid, LaunchOptions{NoSandbox: c.noSandbox})
		if refused := errors.Is(err, ErrRootNeedsNoSandbox); refused != c.refused {
			t.Errorf("euid %d, no-sandbox %v: %v", c.euid, c.noSandbox, err)
		}
	}
}

// Launch as root without the choice is refused before anything starts,
// whoever runs the test: the user Launch sees is stood in for.
func TestLaunchAsRootRefusedWithoutSandboxChoice(t *testing.T) {
	before, _ := filepath.Glob(filepath.Join(os.TempDir(), "clapper-profile-*"))
	b, err := Launch(context.Background(), LaunchOptions{Path: "/nonexistent/chromium", Headless: true, euid: func() int { return 0 }})
	if b != nil || !errors.Is(err, ErrRootNeedsNoSandbox) || !strings.Contains(err.Error(), "--no-sandbox") {
		t.Fatalf("Launch as root: %v, %v", b, err)
	}
	if after, _ := filepath.Glob(filepath.Join(os.TempDir(), "clapper-profile-*")); len(after) != len(before) {
		t.Errorf("a refused launch made a profile: %v", after)
	}
}
