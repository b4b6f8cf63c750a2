package timeline

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTake makes a small valid take with n frames and returns its folder.
func writeTake(t *testing.T, n int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "take")
	log, err := CreateTake(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		fr := Frame{Seq: int64(i), Source: Time(i * 1000), Received: Time(i*1000 + 5), Bytes: 3, File: FramePath(int64(i))}
		if err := os.WriteFile(filepath.Join(dir, fr.File), []byte("jpg"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := log.Append(fr); err != nil {
			t.Fatal(err)
		}
	}
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	tl := &Timeline{Name: "t", Outcome: "ok", End: Time(n * 1000),
		Capture:    Capture{Frames: Accounting{Received: int64(n) + 2, Delivered: int64(n), Late: 1, Rejected: 1, Upstream: "unknown"}},
		Steps:      []Step{{Kind: "expect", Traits: Traits{Waits: true, Expectation: true}, Line: 3, Outcome: OutcomeOK}, {Kind: "click", Line: 4, Outcome: OutcomeUndispatched, Error: "gone", Optional: true}, {Kind: "wait", Line: 5, Outcome: OutcomeUnknown, Error: "timeout"}},
		Boundaries: []Boundary{{Document: 0, LastSeq: -1, URL: BoundaryURL("about:blank")}}}
	if err := WriteTimeline(dir, tl); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestTakeRoundTrip(t *testing.T) {
	dir := writeTake(t, 5)
	tk, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := tk.Validate(); err != nil {
		t.Fatal(err)
	}
	n := 0
	for fr, err := range tk.Frames() {
		if err != nil || fr.Seq != int64(n) {
			t.Fatalf("frame %d: %+v %v", n, fr, err)
		}
		n++
	}
	if n != 5 || tk.Timeline.Version != Version {
		t.Errorf("%d frames, version %d", n, tk.Timeline.Version)
	}
}

func editTimeline(t *testing.T, dir string, f func(m map[string]any)) {
	t.Helper()
	b, _ := os.ReadFile(filepath.Join(dir, TimelineFile))
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	f(m)
	b, _ = json.Marshal(m)
	os.WriteFile(filepath.Join(dir, TimelineFile), b, 0o644)
}

func TestTakeErrors(t *testing.T) {
	cases := []struct {
		name   string
		break_ func(t *testing.T, dir string)
		open   bool // the error comes from Open (else Validate)
		want   string
	}{
		{"not a take", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, TimelineFile)) }, true, "not a take"},
		{"bad json", func(t *testing.T, dir string) { os.WriteFile(filepath.Join(dir, TimelineFile), []byte("{"), 0o644) }, true, "not valid JSON"},
		{"version", func(t *testing.T, dir string) {
			editTimeline(t, dir, func(m map[string]any) { m["version"] = 99 })
		}, true, "version 99 is not supported"},
		{"accounting", func(t *testing.T, dir string) {
			editTimeline(t, dir, func(m map[string]any) { m["capture"].(map[string]any)["frames"].(map[string]any)["late"] = 5 })
		}, true, "does not balance"},
		{"missing frame", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, FramePath(2))) }, false, "missing file"},
		{"size", func(t *testing.T, dir string) { os.WriteFile(filepath.Join(dir, FramePath(1)), []byte("jpeg!"), 0o644) }, false, "has 5 bytes"},
		{"traversal", func(t *testing.T, dir string) {
			appendLine(t, dir, `{"seq":9,"source":99999,"file":"../../etc/passwd"}`+"\n"+`{"seq":10,"source":999999,"file":"frames/x.jpg"}`)
		}, false, "leaves the take"},
		{"absolute", func(t *testing.T, dir string) {
			appendLine(t, dir, `{"seq":9,"source":99999,"file":"/etc/passwd"}`+"\n"+`{"seq":10,"source":999999,"file":"frames/x.jpg"}`)
		}, false, "leaves the take"},
		{"backwards", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "frames", "b.jpg"), []byte("jpg"), 0o644)
			appendLine(t, dir, `{"seq":9,"source":10,"bytes":3,"file":"frames/b.jpg"}`)
		}, false, "does not follow"},
		{"count", func(t *testing.T, dir string) {
			editTimeline(t, dir, func(m map[string]any) {
				f := m["capture"].(map[string]any)["frames"].(map[string]any)
				f["delivered"], f["received"] = 9.0, 11.0
			})
		}, false, "accounting says 9 delivered"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := writeTake(t, 5)
			c.break_(t, dir)
			tk, err := Open(dir)
			if !c.open && err == nil {
				err = tk.Validate()
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
}

func appendLine(t *testing.T, dir, s string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, FramesFile), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString(s + "\n")
}

func TestTornLastLineIsIgnored(t *testing.T) {
	dir := writeTake(t, 3)
	f, _ := os.OpenFile(filepath.Join(dir, FramesFile), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"seq":3,"sour`)
	f.Close()
	tk, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, err := range tk.Frames() {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 3 {
		t.Errorf("%d frames, want the 3 whole ones", n)
	}
}

func TestBoundaryURL(t *testing.T) {
	if u := BoundaryURL(strings.Repeat("a", MaxURL)); u == nil || len(*u) != MaxURL {
		t.Error("an 8192-character URL must be kept whole")
	}
	if BoundaryURL(strings.Repeat("a", MaxURL+1)) != nil {
		t.Error("a longer URL must be null, never cut")
	}
}

func TestSummaryAndJUnit(t *testing.T) {
	tk, err := Open(writeTake(t, 4))
	if err != nil {
		t.Fatal(err)
	}
	s := Summarize(tk.Timeline)
	if s.Frames.Delivered != 4 || s.Frames.Late != 1 || len(s.Steps) != 3 || s.DurationMs != 0 || s.Holds == nil {
		t.Errorf("summary: %+v", s)
	}
	b, _ := json.Marshal(s)
	for _, k := range []string{`"duration_ms"`, `"frames":{"received":6,"delivered":4,"overflow":0,"late":1,"duplicates":0,"rejected":1`, `"boundaries":[{"document":0`, `"receipts":0`, `"holds":[]`} {
		if !strings.Contains(string(b), k) {
			t.Errorf("summary JSON lacks %s: %s", k, b)
		}
	}
	x, err := JUnit(tk.Timeline)
	if err != nil {
		t.Fatal(err)
	}
	xs := string(x)
	// The expect and the failing non-optional wait are cases; the optional click is not.
	if !strings.Contains(xs, `tests="2" failures="1"`) || !strings.Contains(xs, `line="5"`) || strings.Contains(xs, `line="4"`) {
		t.Errorf("junit:\n%s", xs)
	}
}

func TestTakeSummaryCountsSeededFramesAndTabs(t *testing.T) {
	dir := writeTake(t, 3)
	f, _ := os.OpenFile(filepath.Join(dir, FramesFile), os.O_TRUNC|os.O_WRONLY, 0)
	for _, line := range []string{
		`{"seq":0,"tab":"main","source":0,"bytes":3,"file":"frames/000000.jpg","seeded":true}`,
		`{"seq":1,"tab":"main","source":1000,"bytes":3,"file":"frames/000001.jpg"}`,
		`{"seq":2,"tab":"side","source":2000,"bytes":3,"file":"frames/000002.jpg","seeded":true}`,
	} {
		f.WriteString(line + "\n")
	}
	f.Close()
	tk, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := tk.Summary()
	if err != nil {
		t.Fatal(err)
	}
	if s.Frames.Seeded != 2 || s.Frames.ByTab["main"] != 2 || s.Frames.ByTab["side"] != 1 {
		t.Errorf("frames %+v", s.Frames)
	}
}

// A frame file that is a symbolic link, or a frames/ folder that is one or
// holds one, is refused when reading and validating the take, even when
// the link points at a file with the recorded size.
func TestTakeRefusesSymlinks(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(outside, []byte("key"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		link  func(t *testing.T, dir string)
		read  bool // ReadFrame of frame 1 is refused too (else only Validate)
		where string
	}{
		{"frame file", func(t *testing.T, dir string) {
			p := filepath.Join(dir, FramePath(1))
			os.Remove(p)
			if err := os.Symlink(outside, p); err != nil {
				t.Fatal(err)
			}
		}, true, FramePath(1)},
		{"frames folder", func(t *testing.T, dir string) {
			real := filepath.Join(t.TempDir(), "frames")
			if err := os.Rename(filepath.Join(dir, FramesDir), real); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(real, filepath.Join(dir, FramesDir)); err != nil {
				t.Fatal(err)
			}
		}, true, FramesDir},
		{"link beside the frames", func(t *testing.T, dir string) {
			if err := os.Symlink(outside, filepath.Join(dir, FramesDir, "extra.jpg")); err != nil {
				t.Fatal(err)
			}
		}, false, "frames/extra.jpg"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := writeTake(t, 3)
			c.link(t, dir)
			tk, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			if err := tk.Validate(); !errors.Is(err, ErrSymlink) || !strings.Contains(err.Error(), c.where) {
				t.Errorf("Validate: %v, want ErrSymlink naming %s", err, c.where)
			}
			var fr Frame
			for f, err := range tk.Frames() {
				if err != nil {
					t.Fatal(err)
				}
				if f.Seq == 1 {
					fr = f
				}
			}
			b, err := tk.ReadFrame(fr)
			if c.read && (!errors.Is(err, ErrSymlink) || b != nil) {
				t.Errorf("ReadFrame: %q, %v; want ErrSymlink", b, err)
			}
			if !c.read && (err != nil || string(b) != "jpg") {
				t.Errorf("ReadFrame of a plain frame: %q, %v", b, err)
			}
		})
	}
}

// A take written before steps recorded their traits (version 1) opens
// with the traits its steps had then; other versions are refused.
func TestOpenVersion1Take(t *testing.T) {
	dir := t.TempDir()
	v1 := `{"version": 1, "name": "old", "tool": "clapper", "outcome": "ok",
 "capture": {"frames": {"received": 0, "delivered": 0, "upstream": "unknown"}},
 "steps": [{"index": 0, "line": 3, "col": 5, "kind": "expect", "outcome": "ok"}, {"index": 1, "line": 4, "col": 5, "kind": "click", "outcome": "ok"}]}`
	if err := os.WriteFile(filepath.Join(dir, TimelineFile), []byte(v1), 0o644); err != nil {
		t.Fatal(err)
	}
	tk, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st := tk.Timeline.Steps; !st[0].Traits.Expectation || !st[1].Traits.Focus || tk.Timeline.Version != Version {
		t.Errorf("version 1 steps read as %+v (version %d)", st, tk.Timeline.Version)
	}
	if err := os.WriteFile(filepath.Join(dir, TimelineFile), []byte(`{"version": 99}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "version 99 is not supported") {
		t.Errorf("version 99: %v", err)
	}
}

// ReadFrame reads no more of a frame file than the index says it holds.
func TestReadFrameIsBoundedByTheIndex(t *testing.T) {
	tk, err := Open(keptTake)
	if err != nil {
		t.Fatal(err)
	}
	var first Frame
	for fr, err := range tk.Frames() {
		if err != nil {
			t.Fatal(err)
		}
		first = fr
		break
	}
	if b, err := tk.ReadFrame(first); err != nil || len(b) != first.Bytes {
		t.Fatalf("frame as indexed: %d bytes, %v", len(b), err)
	}
	short := first
	short.Bytes = first.Bytes - 1
	if _, err := tk.ReadFrame(short); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("frame larger than its index: %v", err)
	}
}
