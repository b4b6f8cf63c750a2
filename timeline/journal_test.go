package timeline

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// writeJournal records a small run through the real writer.
func writeJournal(t *testing.T, dir string) []byte {
	t.Helper()
	now := Time(0)
	j, err := CreateJournal(dir, func() Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	ms := func(n int) Time { return Time(time.Duration(n) * time.Millisecond) }
	j.Append(JournalRun, JournalHeader{Name: "demo", Tool: "clapper test", Viewport: Viewport{Width: 640, Height: 360, Scale: 1}, Started: ms(1)})
	j.Append(JournalBoundary, Boundary{Document: 0, LastSeq: -1, At: ms(2)})
	j.Append(JournalStepStart, Step{Index: 0, Kind: "goto", Line: 3, Col: 5, Start: ms(3)})
	j.Append(JournalBoundary, Boundary{Document: 1, LastSeq: 4, At: ms(40)})
	j.Append(JournalStep, Step{Index: 0, Kind: "goto", Line: 3, Col: 5, Start: ms(3), End: ms(50), Outcome: OutcomeOK, Target: "http://x/"})
	j.Append(JournalCapture, JournalCaptureState{At: ms(50), Tab: "main", Started: ms(2), Frames: Accounting{Received: 12, Delivered: 10, Late: 1, Duplicates: 1, Upstream: "unknown"}, Mode: CaptureStudio})
	j.Append(JournalStepStart, Step{Index: 1, Kind: "click", Line: 4, Col: 5, Start: ms(51)})
	j.Append(JournalReceipt, Receipt{Kind: InputMove, Tab: "main", X: 1, Y: 2, Sent: ms(52), Acked: ms(53)})
	j.Append(JournalStep, Step{Index: 1, Kind: "click", Line: 4, Col: 5, Start: ms(51), End: ms(60), Outcome: OutcomeOK})
	j.Append(JournalHold, Hold{Tab: "main", Receipt: "r0", Start: ms(55), End: -1, Max: time.Second})
	j.Append(JournalHoldEnd, HoldEnd{Receipt: "r0", End: ms(58), Ended: HoldBound})
	j.Append(JournalHold, Hold{Tab: "main", Receipt: "r1", Start: ms(61), End: -1})
	j.Append(JournalStepStart, Step{Index: 2, Kind: "pause", Line: 5, Col: 5, Start: ms(62)})
	j.Append(JournalStepStart, Step{Index: 3, Kind: "type", Line: 6, Col: 5, Start: ms(70)})
	j.Append(JournalStepStart, Step{Index: 3, Kind: "type", Line: 6, Col: 5, Start: ms(70), Region: &Rect{X: 10, Y: 20, W: 30, H: 40}})
	j.Append(JournalAlive, JournalAliveAt{At: ms(900)})
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRecoverFromTheJournal(t *testing.T) {
	dir := t.TempDir()
	writeJournal(t, dir)
	tl, err := Recover(dir)
	if err != nil {
		t.Fatal(err)
	}
	if tl.Recovered == nil || tl.Recovered.Reason != "ended abruptly" || tl.Outcome != RunAborted {
		t.Fatalf("recovered as %+v, outcome %s", tl.Recovered, tl.Outcome)
	}
	if len(tl.Steps) != 4 || tl.Steps[0].Outcome != OutcomeOK || tl.Steps[2].Outcome != OutcomeUnknown || tl.Steps[2].End != Time(900*time.Millisecond) {
		t.Errorf("steps: %+v", tl.Steps)
	}
	// A running step's later start record says what it found so far.
	if r := tl.Steps[3].Region; r == nil || r.W != 30 {
		t.Errorf("the running type step's region is %+v, want its second start record's", r)
	}
	if r := tl.Recovered; r.Journaled != Time(900*time.Millisecond) || !slices.Equal(r.Open, []int{2, 3}) {
		t.Errorf("journaled to %v with open steps %v, want 900ms and [2 3]", r.Journaled, r.Open)
	}
	if tl.Capture.Mode != CaptureStudio {
		t.Errorf("capture mode %q, want the journal's %q", tl.Capture.Mode, CaptureStudio)
	}
	if len(tl.Holds) != 2 || tl.Holds[0].Ended != HoldBound || tl.Holds[0].Max != time.Second || tl.Holds[0].End != Time(58*time.Millisecond) ||
		tl.Holds[1].End != Time(900*time.Millisecond) || tl.Holds[1].Ended != HoldRun || len(tl.Boundaries) != 2 || len(tl.Receipts) != 1 {
		t.Errorf("holds %+v, boundaries %d, receipts %d", tl.Holds, len(tl.Boundaries), len(tl.Receipts))
	}
	// No frame index: nothing delivered, the discards the journal counted.
	if a := tl.Capture.Frames; a.Delivered != 0 || a.Received != 2 || !a.Balanced() {
		t.Errorf("accounting %+v", a)
	}
}

// A journal cut at every byte offset rebuilds a valid timeline (or, cut
// before its first record ends, is refused as holding no run): a torn
// last line is ignored with a note, and every interval is closed.
func TestRecoverAtEveryCut(t *testing.T) {
	b := writeJournal(t, t.TempDir())
	first := bytes.IndexByte(b, '\n')
	for k := 0; k <= len(b); k++ {
		tl, err := replay(b[:k])
		if k < first {
			if err == nil {
				t.Fatalf("cut at %d (inside the run record): recovered %+v", k, tl)
			}
			continue
		}
		if err != nil {
			t.Fatalf("cut at %d: %v", k, err)
		}
		tail := b[bytes.LastIndexByte(b[:k], '\n')+1 : k]
		torn := len(tail) > 0 && !json.Valid(tail)
		hasNote := false
		for _, n := range tl.Recovered.Notes {
			hasNote = hasNote || strings.Contains(n, "last line was cut off")
		}
		if torn != hasNote {
			t.Errorf("cut at %d: torn %v, notes %v", k, torn, tl.Recovered.Notes)
		}
		if !tl.Capture.Frames.Balanced() || tl.End < tl.Start {
			t.Fatalf("cut at %d: accounting %+v, %v..%v", k, tl.Capture.Frames, tl.Start, tl.End)
		}
		for i, s := range tl.Steps {
			if s.Index != i || s.Outcome == "" || s.End < s.Start {
				t.Fatalf("cut at %d: step %+v", k, s)
			}
		}
		for _, h := range tl.Holds {
			if h.End < h.Start {
				t.Fatalf("cut at %d: hold %+v", k, h)
			}
		}
	}
}

// A take whose run never wrote timeline.json opens, recovered in memory:
// the files are not changed.
func TestOpenRecoversATakeWithoutTimeline(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, FramesDir), 0o755)
	writeJournal(t, dir)
	os.WriteFile(filepath.Join(dir, FramesFile), []byte(`{"seq":0,"document":0,"source":1000,"received":1000,"file":"frames/000000.jpg","bytes":3}`+"\n"+`{"seq":1,"doc`), 0o644)
	os.WriteFile(filepath.Join(dir, FramePath(0)), []byte("abc"), 0o644)
	tk, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if tk.Timeline.Recovered == nil || tk.Timeline.Capture.Frames.Delivered != 1 {
		t.Errorf("recovered %+v, accounting %+v", tk.Timeline.Recovered, tk.Timeline.Capture.Frames)
	}
	if err := tk.Validate(); err != nil {
		t.Errorf("validate: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, TimelineFile)); err == nil {
		t.Error("opening a take wrote its timeline")
	}
}

// journalHour writes d of a busy run's events (ten receipts and an alive
// record a second, a step every ten seconds) and returns the journal's size
// and the live heap it leaves.
func journalHour(t testing.TB, d time.Duration) (size int64, heap uint64) {
	dir := t.TempDir()
	j, err := CreateJournal(dir, func() Time { return 0 })
	if err != nil {
		t.Fatal(err)
	}
	j.Append(JournalRun, JournalHeader{Name: "long"})
	for s := 0; s < int(d/time.Second); s++ {
		at := Time(time.Duration(s) * time.Second)
		for k := 0; k < 10; k++ {
			j.Append(JournalReceipt, Receipt{Kind: InputMove, Tab: "main", X: float64(k), Y: 2, Sent: at, Acked: at})
		}
		j.Append(JournalAlive, JournalAliveAt{At: at})
		if s%10 == 0 {
			j.Append(JournalStep, Step{Index: s / 10, Kind: "click", Start: at, End: at, Outcome: OutcomeOK})
		}
	}
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(filepath.Join(dir, JournalFile))
	return st.Size(), m.HeapAlloc
}

// The journal's memory does not grow with the take: an hour of events
// leaves the same live heap as a minute (its buffer is fixed), and its
// size grows with the events (it records no frames).
func TestJournalMemoryBounded(t *testing.T) {
	_, minute := journalHour(t, time.Minute)
	size, hour := journalHour(t, time.Hour)
	if hour > minute+1<<20 {
		t.Errorf("an hour of journal left %d KiB live, a minute %d KiB", hour>>10, minute>>10)
	}
	t.Logf("an hour of events: journal %d KiB (%d bytes an event), live heap %d KiB after an hour, %d KiB after a minute",
		size>>10, size/(3600*11+360), hour>>10, minute>>10)
}
