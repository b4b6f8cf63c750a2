package bench

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clapper-dev/clapper/suite"
)

// The copies of a script make a suite of exactly that many scripts, each
// with the site it serves and the parts it includes, and none of the
// folder's other scripts.
func TestCopyScript(t *testing.T) {
	for _, c := range []struct {
		script string
		part   string
	}{{"../../samples/quickstart.yaml", ""}, {"../../samples/qa-check.yaml", "parts/signup.yaml"}} {
		dir, err := copyScript(c.script, filepath.Join(t.TempDir(), "scripts"), 3)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, "site", "index.html")); err != nil {
			t.Errorf("%s: the site was not copied: %v", c.script, err)
		}
		if c.part != "" {
			if _, err := os.Stat(filepath.Join(dir, c.part)); err != nil {
				t.Errorf("%s: its part was not copied: %v", c.script, err)
			}
		}
		wd, _ := os.Getwd()
		l, err := suite.List(suite.Options{Args: []string{dir}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range l {
			got = append(got, filepath.Base(e.Script))
		}
		slices.Sort(got)
		if !slices.Equal(got, []string{"copy-01.yaml", "copy-02.yaml", "copy-03.yaml"}) {
			t.Errorf("%s: the suite of copies films %v (from %s)", c.script, got, wd)
		}
	}
}

// The table gives each way's ratios to the sequential runs of its mode.
func TestSuiteReportRatios(t *testing.T) {
	rep := suiteReport{Script: "s.yaml", Copies: 4, Runs: 3, Machine: machine{Cores: 2, PageFaultUS: micros(250 * time.Nanosecond), SharedFaultUS: micros(11 * time.Microsecond)}, Medians: []suiteRun{
		{Capture: "live", WallS: 40, CPUS: 60, Passed: 4},
		{Capture: "live", Workers: 2, WallS: 30, CPUS: 45, Passed: 4},
		{Capture: "studio", WallS: 80, CPUS: 100, Passed: 4},
		{Capture: "studio", Workers: 2, WallS: 60, CPUS: 120, Passed: 3},
	}}
	rep.Worst = rep.Medians
	var b bytes.Buffer
	rep.print(&b)
	out := b.String()
	for _, want := range []string{"medians of 3 runs on 2 cores, a page fault 0.25 µs (11.00 µs shared) (default workers", "live    2 workers        30.0s     45.0s        7.50s      0.75      0.75", "studio  2 workers        60.0s    120.0s       15.00s      0.75      1.20    3/4"} {
		if !strings.Contains(out, want) {
			t.Errorf("no line %q in\n%s", want, out)
		}
	}
}
