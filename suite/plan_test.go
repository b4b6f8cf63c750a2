package suite

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clapper-dev/clapper/internal/exit"
)

// Every shard plan, with and without durations, for suites of 0 to 12
// scripts in 1 to 5 parts: each script in exactly one part, parts keep the
// order given, and the parts do not depend on the order of the arguments.
func TestPlanCoversEveryScriptOnce(t *testing.T) {
	key := func(s string) string { return strings.TrimSuffix(s, ".yaml") }
	for n := 0; n <= 12; n++ {
		var scripts []string
		durs := map[string]time.Duration{}
		for i := range n {
			s := fmt.Sprintf("s%02d.yaml", (i*7)%13) // not in key order
			scripts = append(scripts, s)
			if i%3 != 0 {
				durs[key(s)] = time.Duration(i*i+1) * time.Second
			}
		}
		reversed := slices.Clone(scripts)
		slices.Reverse(reversed)
		for parts := 1; parts <= 5; parts++ {
			for _, d := range []map[string]time.Duration{nil, durs} {
				seen := map[string]int{}
				for i := 1; i <= parts; i++ {
					sh := Shard{Index: i, Count: parts}
					p := Plan(scripts, sh, key, d)
					for _, s := range p {
						seen[s]++
					}
					// Order as given within a part.
					pos := func(s string) int { return slices.Index(scripts, s) }
					if !slices.IsSortedFunc(p, func(a, b string) int { return pos(a) - pos(b) }) {
						t.Errorf("n=%d %v: part %v not in the order given", n, sh, p)
					}
					// Same members whatever the order of the arguments.
					q := Plan(reversed, sh, key, d)
					a, b := slices.Clone(p), slices.Clone(q)
					slices.Sort(a)
					slices.Sort(b)
					if !slices.Equal(a, b) {
						t.Errorf("n=%d %v: %v, reversed arguments %v", n, sh, a, b)
					}
				}
				if len(seen) != n {
					t.Errorf("n=%d parts=%d: %d scripts planned", n, parts, len(seen))
				}
				for s, c := range seen {
					if c != 1 {
						t.Errorf("n=%d parts=%d: %s in %d parts", n, parts, s, c)
					}
				}
			}
		}
	}
}

// Without durations the parts are dealt by key; with them, the longest
// goes first to the lightest part.
func TestPlanBalances(t *testing.T) {
	id := func(s string) string { return s }
	all := []string{"a", "b", "c", "d", "e"}
	if p := Plan(all, Shard{1, 2}, id, nil); !slices.Equal(p, []string{"a", "c", "e"}) {
		t.Errorf("by count, part 1: %v", p)
	}
	d := map[string]time.Duration{"a": 10 * time.Second, "b": time.Second, "c": time.Second, "d": time.Second, "e": 7 * time.Second}
	// a (10 s) → 1; e (7 s) → 2; then b, c and d, 1 s each, go to part 2,
	// the lighter each time (8, 9, 10 s).
	p1, p2 := Plan(all, Shard{1, 2}, id, d), Plan(all, Shard{2, 2}, id, d)
	if !slices.Equal(p1, []string{"a"}) || !slices.Equal(p2, []string{"b", "c", "d", "e"}) {
		t.Errorf("balanced: %v | %v", p1, p2)
	}
	// A script with no recorded duration counts as the median (5 s): a 9
	// → 1, c 5 → 2, new 5 → 2, b 1 → 1 (9 against 10).
	d2 := map[string]time.Duration{"a": 9 * time.Second, "b": time.Second, "c": 5 * time.Second}
	p1, p2 = Plan([]string{"a", "b", "c", "new"}, Shard{1, 2}, id, d2), Plan([]string{"a", "b", "c", "new"}, Shard{2, 2}, id, d2)
	if !slices.Equal(p1, []string{"a", "b"}) || !slices.Equal(p2, []string{"c", "new"}) {
		t.Errorf("median for the new one: %v | %v", p1, p2)
	}
	if p := Plan(all, Shard{}, id, d); !slices.Equal(p, all) {
		t.Errorf("whole: %v", p)
	}
}

func TestParseShard(t *testing.T) {
	for v, want := range map[string]Shard{"1/1": {1, 1}, "2/3": {2, 3}, "3/3": {3, 3}} {
		if got, err := ParseShard(v); err != nil || got != want {
			t.Errorf("%q: %v %v", v, got, err)
		}
	}
	for _, v := range []string{"", "0/3", "4/3", "1/0", "a/b", "1", "1/2/3", "-1/2"} {
		if _, err := ParseShard(v); err == nil {
			t.Errorf("%q accepted", v)
		}
	}
}

func TestOutDir(t *testing.T) {
	for _, c := range []struct{ script, want string }{
		{"samples/tour.yaml", "samples/tour"},
		{"./tour.yml", "tour"},
		{"/work/x/a/b.yaml", "a/b"},
		{"../other/c.yaml", "abs/work/other/c"},
		{"/elsewhere/d.yaml", "abs/elsewhere/d"},
	} {
		if got := filepath.ToSlash(OutDir(c.script, "/work/x")); got != c.want {
			t.Errorf("OutDir(%q) = %q, want %q", c.script, got, c.want)
		}
	}
}

// A folder gives its scripts in name order, not its subfolders; a script
// named twice is filmed once; what others include is left out.
func TestExpand(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"b.yaml", "a.yml", "c.txt", ".hidden.yaml", "parts/p.yaml"} {
		p := filepath.Join(dir, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("steps: []\n"), 0o644)
	}
	// A link to a script counts (a mounted ConfigMap), a link to a folder
	// does not.
	elsewhere := filepath.Join(t.TempDir(), "real.yaml")
	os.WriteFile(elsewhere, []byte("steps: []\n"), 0o644)
	os.Symlink(elsewhere, filepath.Join(dir, "c.yaml"))
	os.Symlink(filepath.Join(dir, "parts"), filepath.Join(dir, "d.yaml"))
	got, err := Expand([]string{dir, filepath.Join(dir, "b.yaml"), filepath.Join(dir, "parts", "p.yaml")})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "a.yml"), filepath.Join(dir, "b.yaml"), filepath.Join(dir, "c.yaml"), filepath.Join(dir, "parts", "p.yaml")}
	if !slices.Equal(got, want) {
		t.Errorf("Expand: %v, want %v", got, want)
	}
	if ex := Exclude(got, map[string]bool{filepath.Join(dir, "parts", "p.yaml"): true}); len(ex) != 3 {
		t.Errorf("Exclude: %v", ex)
	}
	if _, err := Expand([]string{filepath.Join(dir, "nope.yaml")}); err == nil {
		t.Error("a missing script expanded")
	}
	if _, err := Expand([]string{filepath.Join(dir, "parts", "..", "parts", "empty")}); err == nil {
		t.Error("a missing folder expanded")
	}
}

func TestOutcome(t *testing.T) {
	done, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		ctx    context.Context
		err    error
		status Status
		code   int
	}{
		{context.Background(), nil, Passed, 0},
		{context.Background(), &exit.Error{Code: exit.Failed, Err: errors.New("step")}, Failed, 1},
		{context.Background(), fmt.Errorf("wrapped: %w", &exit.Error{Code: exit.Usage, Err: errors.New("bad")}), Broken, 2},
		{context.Background(), errors.New("chromium gone"), Broken, 1},
		{done, &exit.Error{Code: exit.Failed, Err: errors.New("step")}, Interrupted, 1},
	} {
		if s, code := outcome(c.ctx, c.err); s != c.status || code != c.code {
			t.Errorf("%v: %s %d, want %s %d", c.err, s, code, c.status, c.code)
		}
	}
}

func TestTotalsLine(t *testing.T) {
	s := Summary{Scripts: []Entry{{Status: Passed}, {Status: Flaky}, {Status: Failed}, {Status: Broken}, {Status: Passed}}}
	s.Count()
	if got := s.Totals.Line(); got != "2 passed, 1 flaky, 1 failed, 1 broken (5 scripts)" {
		t.Errorf("line: %q", got)
	}
	if s.Totals.OK() {
		t.Error("a suite with failures is OK")
	}
	s = Summary{Scripts: []Entry{{Status: Passed}}}
	s.Count()
	if got := s.Totals.Line(); got != "1 passed, 0 failed (1 scripts)" || !s.Totals.OK() {
		t.Errorf("line: %q", got)
	}
}

// shrink averages the pixels each output pixel covers.
func TestShrink(t *testing.T) {
	src := image.NewRGBA(image.Rect(0, 0, 4, 2))
	for x := range 4 {
		for y := range 2 {
			v := uint8(0)
			if x%2 == 1 {
				v = 200
			}
			src.Set(x, y, color.RGBA{v, v, v, 255})
		}
	}
	dst := shrink(src, 2)
	if b := dst.Bounds(); b.Dx() != 2 || b.Dy() != 1 {
		t.Fatalf("size %v", b)
	}
	if r, _, _, _ := dst.At(0, 0).RGBA(); r>>8 != 100 {
		t.Errorf("mean %d, want 100", r>>8)
	}
	if shrink(src, 8) != image.Image(src) {
		t.Error("grew a small picture")
	}
}

// A failure is said once: a step's error that already names its place is
// printed as it is, after the status.
func TestPrintFailuresSaysThePlaceOnce(t *testing.T) {
	sum := &Summary{Scripts: []Entry{
		{Script: "a.yaml", Status: Passed},
		{Script: "b.yaml", Status: Failed, Failure: &Failure{Step: 2, File: "b.yaml", Line: 4, Col: 5, Kind: "expect",
			Error: "b.yaml:4:5: step 2 (expect \"label\") failed [undispatched]: expected text\nmore"}},
		{Script: "c.yaml", Status: Failed, Failure: &Failure{Step: 1, File: "c.yaml", Line: 3, Col: 5, Kind: "click", Error: "not found"}},
		{Script: "d.yaml", Status: Broken, Error: "chromium did not start"},
	}}
	var b strings.Builder
	PrintFailures(&b, sum)
	want := "failed b.yaml:4:5: step 2 (expect \"label\") failed [undispatched]: expected text …\n" +
		"failed c.yaml:3:5: step 1 (click) failed: not found\n" +
		"broken d.yaml: chromium did not start\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
