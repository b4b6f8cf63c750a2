package clapper_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportArrows keeps the package arrows of DESIGN.md true: only session
// and recorder speak CDP; timeline and scripts are leaves; the compositor
// reads only the timeline.
func TestImportArrows(t *testing.T) {
	const mod = "github.com/clapper-dev/clapper/"
	deps := func(pkg string) []string {
		out, err := exec.Command("go", "list", "-deps", "./"+pkg).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", pkg, err)
		}
		return strings.Fields(string(out))
	}
	cdp := func(d string) bool {
		return strings.HasPrefix(d, "github.com/chromedp/")
	}
	for _, pkg := range []string{"timeline", "scripts", "compositor", "samples", "cmd/clapper", "session", "recorder"} {
		for _, d := range deps(pkg) {
			own := strings.TrimPrefix(d, mod)
			isOwn := strings.HasPrefix(d, mod) && own != pkg
			switch pkg {
			case "timeline", "scripts", "samples":
				if isOwn {
					t.Errorf("%s imports %s: it must be a leaf", pkg, d)
				}
				if cdp(d) {
					t.Errorf("%s imports %s: only session and recorder speak CDP", pkg, d)
				}
			case "compositor":
				if isOwn && own != "timeline" {
					t.Errorf("compositor imports %s: it may read only timeline", d)
				}
				if cdp(d) {
					t.Errorf("compositor imports %s", d)
				}
			case "cmd/clapper":
				// The CLI may use every package, but speaks CDP only through them.
			}
		}
	}
	// The CLI does not import chromedp directly.
	out, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, "./cmd/clapper").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range strings.Fields(string(out)) {
		if cdp(imp) {
			t.Errorf("cmd/clapper imports %s directly", imp)
		}
	}
}
