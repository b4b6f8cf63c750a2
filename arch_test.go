package clapper_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// arrows lists, for every package of the module, the module's packages it
// may import (docs/ARCHITECTURE.md draws them): timeline and scripts are
// leaves (but for internal/size and internal/plainfile, leaves themselves), the compositor reads only
// the timeline, the recorder knows nothing of steps, and the CLI uses
// everything but the test helpers. film runs a script from start to
// finish for the CLI (and any suite runner), host is the shared browser's
// protocol; both sit above session. The benchmarks (internal/bench) and
// the doctor's checks (internal/doctor) sit beside them, under the CLI.
var arrows = map[string][]string{
	"":                     {},
	"timeline":             {"internal/plainfile"},
	"scripts":              {"internal/size", "internal/plainfile", "internal/outrules"},
	"internal/plainfile":   {},
	"internal/size":        {},
	"internal/outrules":    {},
	"internal/procfs":      {},
	"internal/ownerlock":   {"internal/procfs"},
	"internal/testenv":     {"internal/procfs"},
	"internal/testbrowser": {"internal/testenv", "session"},
	"internal/benchpage":   {"timeline"},
	"leases":               {"internal/procfs"},
	"compositor":           {"timeline", "internal/ownerlock", "internal/procfs", "internal/size", "internal/plainfile", "internal/outrules"},
	"recorder":             {"timeline"},
	"bundle":               {"timeline", "internal/ownerlock", "internal/procfs", "internal/plainfile"},
	"compare":              {"timeline"},
	"viewer":               {"timeline", "compare"},
	"session":              {"recorder", "scripts", "timeline", "internal/procfs", "internal/ownerlock", "leases"},
	"internal/exit":        {},
	"host":                 {"session", "leases", "scripts", "timeline", "internal/exit", "internal/ownerlock"},
	"film":                 {"bundle", "compare", "compositor", "host", "internal/exit", "internal/ownerlock", "recorder", "scripts", "session", "timeline", "viewer"},
	"internal/bench":       {"film", "compositor", "internal/benchpage", "internal/exit", "internal/procfs", "recorder", "scripts", "session", "suite", "timeline"},
	"internal/doctor":      {"compositor", "host", "internal/procfs", "session"},
	"internal/starter":     {"scripts", "internal/exit"},
	"internal/buildinfo":   {},
	"suite":                {"film", "compare", "bundle", "host", "internal/exit", "leases", "scripts", "session", "timeline"},
	"cmd/clapper":          {"suite", "film", "host", "internal/bench", "internal/buildinfo", "internal/doctor", "internal/starter", "internal/exit", "bundle", "compare", "compositor", "internal/benchpage", "internal/ownerlock", "internal/plainfile", "internal/procfs", "internal/size", "internal/outrules", "leases", "recorder", "scripts", "session", "timeline", "viewer"},
}

// speaksCDP are the packages that may depend on chromedp.
var speaksCDP = []string{"session", "recorder"}

// drivesSessions are the packages that reach chromedp only through session
// (they run scripts or host a browser; none imports chromedp itself).
var drivesSessions = []string{"cmd/clapper", "film", "host", "internal/bench", "internal/doctor", "internal/testbrowser", "suite"}

// TestImportArrows keeps the package arrows true: each package imports
// only the module's packages its row allows, and only session and the
// recorder depend on chromedp (the CLI speaks CDP only through them).
func TestImportArrows(t *testing.T) {
	const mod = "github.com/clapper-dev/clapper"
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(strings.TrimPrefix(f[0], mod), "/")
		allowed, ok := arrows[pkg]
		if !ok {
			t.Errorf("package %q has no row in arrows: say what it may import", pkg)
			continue
		}
		seen++
		for _, imp := range f[1:] {
			if own, isOwn := strings.CutPrefix(imp, mod+"/"); isOwn && !slices.Contains(allowed, own) {
				t.Errorf("%s imports %s; it may import only %v", f[0], imp, allowed)
			}
			if strings.HasPrefix(imp, "github.com/chromedp/") && !slices.Contains(speaksCDP, pkg) {
				t.Errorf("%s imports %s: only %v speak CDP", f[0], imp, speaksCDP)
			}
		}
		deps, err := exec.Command("go", "list", "-deps", "./"+pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		usesCDP := strings.Contains(string(deps), "github.com/chromedp/")
		if usesCDP && !slices.Contains(speaksCDP, pkg) && !slices.Contains(drivesSessions, pkg) {
			t.Errorf("%s depends on chromedp through its imports", f[0])
		}
	}
	if seen != len(arrows) {
		t.Errorf("go list found %d of the %d packages in arrows: is a row stale?", seen, len(arrows))
	}
}
