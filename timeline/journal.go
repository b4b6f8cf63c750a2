package timeline

import (
	"github.com/clapper-dev/clapper/internal/plainfile"

	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"
)

// JournalFile is the take's write-ahead journal: everything the timeline
// will hold, appended as it happens, one JSON record a line. A run that is
// killed before it writes timeline.json leaves a take that Recover rebuilds
// from the journal and the frame index.
const JournalFile = "journal.jsonl"

// Journal record kinds.
const (
	JournalRun       = "run"        // JournalHeader: the run's facts, first
	JournalStepStart = "step_start" // Step as it starts, or as far as it got (no outcome yet)
	JournalStep      = "step"       // Step as it ended
	JournalReceipt   = "receipt"    // Receipt
	JournalBoundary  = "boundary"   // Boundary
	JournalHold      = "hold"       // Hold as it starts (End -1)
	JournalHoldEnd   = "hold_end"   // HoldEnd
	JournalCapture   = "capture"    // JournalCaptureState: the accounting so far
	JournalAlive     = "alive"      // JournalAliveAt: the run was alive then
)

// journalLine is one line of the journal.
type journalLine struct {
	Kind string          `json:"k"`
	V    json.RawMessage `json:"v"`
}

// JournalHeader is the first record: what the timeline's header will say.
type JournalHeader struct {
	Name     string   `json:"name"`
	Script   string   `json:"script,omitempty"`
	Served   string   `json:"served,omitempty"`
	Tool     string   `json:"tool"`
	Viewport Viewport `json:"viewport"`
	Clock    Clock    `json:"clock"`
	Started  Time     `json:"started"`
}

// HoldEnd closes a hold.
type HoldEnd struct {
	Receipt string `json:"receipt"`
	End     Time   `json:"end"`
	Ended   string `json:"ended,omitempty"` // Hold.Ended
	Error   string `json:"error,omitempty"` // Hold.Error
}

// JournalCaptureState is the capture's accounting at a moment.
type JournalCaptureState struct {
	At      Time       `json:"at"`
	Tab     string     `json:"tab"`
	Started Time       `json:"started"`
	Frames  Accounting `json:"frames"`
	// Mode is Capture.Mode (a take recovered, or read while it is
	// captured, is rendered as its mode asks: a studio take's lead-in
	// ends at its first frame after the load).
	Mode string `json:"mode,omitempty"`
}

// JournalAliveAt says the run was alive at a moment (written every
// journalEvery).
type JournalAliveAt struct {
	At Time `json:"at"`
}

// journalEvery is how often the journal is flushed (and an alive record
// written) when nothing else flushes it: also how far behind the capture a
// render made while capturing may be (compositor.StartEarly renders what
// the journal has).
const journalEvery = 250 * time.Millisecond

// Journal appends records to a take's journal. It is flushed by Flush (at
// step boundaries) and at least every journalEvery by a goroutine of its own,
// which Close ends. Safe for concurrent use; the first write error is kept
// and returned by Flush and Close.
type Journal struct {
	mu   sync.Mutex
	f    *os.File
	bw   *bufio.Writer
	err  error
	now  func() Time
	stop chan struct{}
	done chan struct{}
}

// CreateJournal starts a take's journal in dir, replacing an old one. now
// reads the take clock for the alive records.
func CreateJournal(dir string, now func() Time) (*Journal, error) {
	f, err := os.OpenFile(filepath.Join(dir, JournalFile), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create journal: %w", err)
	}
	j := &Journal{f: f, bw: bufio.NewWriterSize(f, 64<<10), now: now, stop: make(chan struct{}), done: make(chan struct{})}
	go j.flusher()
	return j, nil
}

// flusher is the journal's own goroutine: it writes an alive record and
// flushes every journalEvery until Close.
func (j *Journal) flusher() {
	defer close(j.done)
	t := time.NewTicker(journalEvery)
	defer t.Stop()
	for {
		select {
		case <-j.stop:
			return
		case <-t.C:
			j.Append(JournalAlive, JournalAliveAt{At: j.now()})
			_ = j.Flush()
		}
	}
}

// Append writes one record. A nil journal records nothing.
func (j *Journal) Append(kind string, v any) {
	if j == nil {
		return
	}
	b, err := json.Marshal(v)
	if err == nil {
		b, err = json.Marshal(journalLine{Kind: kind, V: b})
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err != nil {
		return
	}
	if err == nil {
		_, err = j.bw.Write(append(b, '\n'))
	}
	j.err = err
}

// Flush pushes what was appended to the file.
func (j *Journal) Flush() error {
	if j == nil {
		return nil
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err == nil {
		j.err = j.bw.Flush()
	}
	return j.err
}

// Err is the first write of the journal that failed (a full disk), nil
// while every one has succeeded.
func (j *Journal) Err() error {
	if j == nil {
		return nil
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.err
}

// Close stops the flusher, flushes and closes the file.
func (j *Journal) Close() error {
	if j == nil {
		return nil
	}
	close(j.stop)
	<-j.done
	err := j.Flush()
	if cerr := j.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Recovery says that a timeline was rebuilt from a take's journal, and why.
type Recovery struct {
	// Reason is why the take needed it: "ended abruptly" when the run never
	// wrote timeline.json.
	Reason string `json:"reason"`
	// Notes say what recovery did: lines ignored, intervals closed.
	Notes []string `json:"notes,omitempty"`
	// Journaled is how far the journal goes: the take time of its last
	// record. Steps and input are known up to it; frames may go further
	// (they are indexed as they are stored, the journal is flushed at
	// step ends and every journalEvery).
	Journaled Time `json:"journaled,omitempty"`
	// Open lists the steps (by index) that had not ended, closed here at
	// Journaled.
	Open []int `json:"open,omitempty"`
}

// Recover rebuilds the timeline of a take whose run ended before writing
// timeline.json, from its journal and its frame index: every step that
// started (one that did not end is closed at the last known time with an
// unknown outcome), every receipt, boundary and hold, and every frame whose
// index line is whole, with the accounting balanced over them. A torn last
// line, or an unreadable one, is ignored with a note. It reads only. The
// page log comes back as far as it was journaled (journal_page.go).
func Recover(dir string) (*Timeline, error) {
	b, err := plainfile.ReadFile(filepath.Join(dir, JournalFile), JournalFile, plainfile.Journal, false)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w (and no %s to rebuild it from)", dir, ErrNotTake, JournalFile)
	}
	if err != nil {
		return nil, fmt.Errorf("read journal: %w", err)
	}
	t, err := replay(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	addFrames(t, &Take{Dir: dir})
	return t, nil
}

// replay rebuilds a timeline from journal bytes, before the frames are
// counted. Pure.
func replay(b []byte) (*Timeline, error) {
	var (
		t        *Timeline
		notes    []string
		steps    = map[int]Step{}
		last     Time
		capState *JournalCaptureState
	)
	seen := func(at Time) {
		if at > last {
			last = at
		}
	}
	lines := bytes.Split(b, []byte("\n"))
	for i, ln := range lines {
		if len(bytes.TrimSpace(ln)) == 0 {
			continue
		}
		torn := i == len(lines)-1 // a last line without its newline
		var l journalLine
		if err := json.Unmarshal(ln, &l); err != nil {
			if torn {
				notes = append(notes, fmt.Sprintf("%s: its last line was cut off and is ignored", JournalFile))
			} else {
				notes = append(notes, fmt.Sprintf("%s line %d is unreadable and is ignored", JournalFile, i+1))
			}
			continue
		}
		if t == nil && l.Kind != JournalRun {
			return nil, fmt.Errorf("%s does not start with the run's record", JournalFile)
		}
		var err error
		switch l.Kind {
		case JournalRun:
			var h JournalHeader
			if err = json.Unmarshal(l.V, &h); err == nil && t == nil {
				t = &Timeline{Version: Version, Name: h.Name, Script: h.Script, Served: h.Served, Tool: h.Tool, Viewport: h.Viewport,
					Clock: h.Clock, Start: h.Started, Steps: []Step{}, Receipts: []Receipt{}, Boundaries: []Boundary{}, Holds: []Hold{}}
				seen(h.Started)
			}
		case JournalStepStart, JournalStep:
			var s Step
			if err = json.Unmarshal(l.V, &s); err == nil {
				// A later start record of a step still running says what
				// it has found so far; its end record is final.
				if prev, ok := steps[s.Index]; !ok || l.Kind == JournalStep || prev.Outcome == "" {
					steps[s.Index] = s
				}
				seen(s.Start)
				seen(s.End)
			}
		case JournalReceipt:
			var r Receipt
			if err = json.Unmarshal(l.V, &r); err == nil {
				t.Receipts = append(t.Receipts, r)
				seen(r.Acked)
			}
		case JournalBoundary:
			var bd Boundary
			if err = json.Unmarshal(l.V, &bd); err == nil {
				t.Boundaries = append(t.Boundaries, bd)
				seen(bd.At)
			}
		case JournalHold:
			var h Hold
			if err = json.Unmarshal(l.V, &h); err == nil {
				h.End = -1
				t.Holds = append(t.Holds, h)
				seen(h.Start)
			}
		case JournalHoldEnd:
			var he HoldEnd
			if err = json.Unmarshal(l.V, &he); err == nil {
				for k := range t.Holds {
					if t.Holds[k].Receipt == he.Receipt {
						t.Holds[k].End, t.Holds[k].Ended, t.Holds[k].Error = he.End, he.Ended, he.Error
					}
				}
				seen(he.End)
			}
		case JournalCapture:
			var c JournalCaptureState
			if err = json.Unmarshal(l.V, &c); err == nil {
				capState = &c
				seen(c.At)
			}
		case JournalPage, JournalPageCounts:
			var at Time
			if at, err = replayPage(t, l.Kind, l.V); err == nil {
				seen(at)
			}
		case JournalAlive:
			var a JournalAliveAt
			if err = json.Unmarshal(l.V, &a); err == nil {
				seen(a.At)
			}
		default:
			notes = append(notes, fmt.Sprintf("%s line %d has an unknown kind %q and is ignored", JournalFile, i+1, l.Kind))
		}
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s line %d (%s) is unreadable and is ignored", JournalFile, i+1, l.Kind))
		}
	}
	if t == nil {
		return nil, fmt.Errorf("%s holds no run record", JournalFile)
	}
	idx := make([]int, 0, len(steps))
	for i := range steps {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	var open []int
	for _, i := range idx {
		s := steps[i]
		if s.Outcome == "" {
			open = append(open, s.Index)
			s.End, s.Outcome = max(last, s.Start), OutcomeUnknown
			s.Error = "the run ended abruptly during this step"
			notes = append(notes, fmt.Sprintf("step %d (%s, line %d) had not ended: closed at the last known time", s.Index+1, s.Kind, s.Line))
		}
		t.Steps = append(t.Steps, s)
	}
	for k := range t.Holds {
		if t.Holds[k].End < 0 {
			t.Holds[k].End, t.Holds[k].Ended = last, HoldRun
			notes = append(notes, fmt.Sprintf("the hold of tab %q had not ended: closed at the last known time", t.Holds[k].Tab))
		}
	}
	closePage(t)
	t.Capture.Frames.Upstream = "unknown"
	t.Capture.EndReason = "ended abruptly"
	if capState != nil {
		t.Capture.Tab, t.Capture.Started, t.Capture.Frames, t.Capture.Mode = capState.Tab, capState.Started, capState.Frames, capState.Mode
		t.Capture.Frames.Upstream = "unknown"
		t.Start = capState.Started
	}
	t.End = max(last, t.Start)
	t.Capture.Ended = t.End
	t.Outcome = RunAborted
	t.Error = "the run ended abruptly, before it wrote " + TimelineFile
	t.Recovered = &Recovery{Reason: "ended abruptly", Notes: notes, Journaled: t.End, Open: open}
	return t, nil
}

// addFrames counts the frames whose index lines are whole into a
// recovered timeline: delivered is what the index holds, the discard
// buckets are the journal's last count, and received their sum. The end
// moves to the last frame received.
func addFrames(t *Timeline, tk *Take) {
	var n int64
	tabs := map[string]bool{}
	for fr, err := range tk.Frames() {
		if err != nil {
			t.Recovered.Notes = append(t.Recovered.Notes, "the frame index ends early: "+err.Error())
			break
		}
		n++
		tabs[fr.Tab] = true
		if fr.Received > t.End {
			t.End = fr.Received
		}
	}
	a := &t.Capture.Frames
	if a.Delivered != n {
		t.Recovered.Notes = append(t.Recovered.Notes, fmt.Sprintf("%d frames are indexed (the journal last counted %d delivered)", n, a.Delivered))
	}
	a.Delivered = n
	a.Received = n + a.Discarded()
	if len(tabs) > 1 {
		t.Capture.Tab = ""
	}
	t.Capture.Ended = t.End
}
