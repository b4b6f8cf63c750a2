package timeline

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Summary is the digest of a take that `clapper inspect` prints. Times are
// milliseconds since the take's start (Timeline.Start, when capture began);
// the timeline itself keeps the take clock.
type Summary struct {
	Name       string            `json:"name"`
	Outcome    RunOutcome        `json:"outcome"`
	Error      string            `json:"error,omitempty"`
	DurationMs int64             `json:"duration_ms"`
	Clock      Mapping           `json:"clock"`
	Viewport   Viewport          `json:"viewport"`
	Frames     FrameSummary      `json:"frames"`
	EndReason  string            `json:"capture_end"`
	Boundaries []BoundarySummary `json:"boundaries"`
	Steps      []StepSummary     `json:"steps"`
	Receipts   int               `json:"receipts"`
	ByKind     map[string]int    `json:"receipts_by_kind"`
	Holds      []HoldSummary     `json:"holds"`
	Cleanup    *Cleanup          `json:"cleanup,omitempty"`
	Recovered  *Recovery         `json:"recovered,omitempty"`
	Page       *PageSummary      `json:"page,omitempty"`
	// Pruned says that the take's pictures were removed after its run,
	// when and why (PrunedWarning); "" for a whole take.
	Pruned string `json:"pruned,omitempty"`
}

// FrameSummary is the accounting plus the rate frames were received at,
// and (from the frame index) how many delivered frames the recorder took
// itself and which tabs they show.
type FrameSummary struct {
	Accounting
	PerSecond float64        `json:"per_second"`
	Seeded    int64          `json:"seeded"`
	ByTab     map[string]int `json:"by_tab,omitempty"`
	// Mode is the capture mode ("" in takes from before studio capture);
	// a studio take also has its frame interval and its repeats.
	Mode            string  `json:"mode,omitempty"`
	FrameIntervalMs float64 `json:"frame_interval_ms,omitempty"`
	Repeats         int64   `json:"repeats,omitempty"`
	Pictures        string  `json:"pictures,omitempty"`
	Missed          int64   `json:"missed,omitempty"`
	// Restarts counts a live capture's screencast restarts.
	Restarts int64 `json:"restarts,omitempty"`
}

// BoundarySummary is one document boundary.
type BoundarySummary struct {
	Document int     `json:"document"`
	URL      *string `json:"url"`
	AtMs     int64   `json:"at_ms"`
	LastSeq  int64   `json:"last_seq"`
	// Tab names the tab the document was filmed in.
	Tab string `json:"tab,omitempty"`
}

// StepSummary is one step.
type StepSummary struct {
	Index   int     `json:"index"`
	Line    int     `json:"line"`
	Col     int     `json:"col"`
	Kind    string  `json:"kind"`
	Label   string  `json:"label,omitempty"`
	Outcome Outcome `json:"outcome"`
	StartMs int64   `json:"start_ms"`
	EndMs   int64   `json:"end_ms"`
	Error   string  `json:"error,omitempty"`
	// Late says why the step's timed parts ran late, when they did.
	Late *Late `json:"late,omitempty"`
	// Tab names the tab the step ran in.
	Tab string `json:"tab,omitempty"`
}

// HoldSummary is one hold.
type HoldSummary struct {
	Tab     string `json:"tab"`
	Receipt string `json:"receipt"`
	StartMs int64  `json:"start_ms"`
	EndMs   int64  `json:"end_ms"`
	MaxMs   int64  `json:"max_ms,omitempty"`
	Ended   string `json:"ended,omitempty"`
	Error   string `json:"error,omitempty"`
}

// Summarize digests a timeline.
func Summarize(t *Timeline) Summary {
	a := t.Capture.Frames
	s := Summary{
		Name: t.Name, Outcome: t.Outcome, Error: t.Error, DurationMs: (t.End - t.Start).Millis(),
		Clock: t.Clock.Mapping, Viewport: t.Viewport, EndReason: t.Capture.EndReason,
		Frames: FrameSummary{Accounting: a, Mode: t.Capture.Mode, Repeats: t.Capture.Repeats, Pictures: t.Capture.Pictures, Missed: t.Capture.Missed, Restarts: t.Capture.Restarts,
			FrameIntervalMs: float64(t.Capture.FrameInterval) / 1e6},
		Boundaries: []BoundarySummary{}, Steps: []StepSummary{}, Holds: []HoldSummary{},
		Receipts: len(t.Receipts), ByKind: map[string]int{}, Cleanup: t.Cleanup, Recovered: t.Recovered,
		Page: SummarizePage(t.Page, t.Start),
	}
	if d := (t.Capture.Ended - t.Capture.Started).Seconds(); d > 0 {
		s.Frames.PerSecond = float64(a.Received) / d
	}
	for _, b := range t.Boundaries {
		s.Boundaries = append(s.Boundaries, BoundarySummary{Document: b.Document, URL: b.URL, AtMs: (b.At - t.Start).Millis(), LastSeq: b.LastSeq, Tab: b.Tab})
	}
	for _, st := range t.Steps {
		s.Steps = append(s.Steps, StepSummary{Index: st.Index, Line: st.Line, Col: st.Col, Kind: st.Kind, Label: st.Label,
			Outcome: st.Outcome, StartMs: (st.Start - t.Start).Millis(), EndMs: (st.End - t.Start).Millis(), Error: st.Error, Late: st.Late, Tab: st.Tab})
	}
	for _, r := range t.Receipts {
		s.ByKind[r.Kind]++
	}
	for _, h := range t.Holds {
		s.Holds = append(s.Holds, HoldSummary{Tab: h.Tab, Receipt: h.Receipt, StartMs: (h.Start - t.Start).Millis(), EndMs: (h.End - t.Start).Millis(),
			MaxMs: h.Max.Milliseconds(), Ended: h.Ended, Error: h.Error})
	}
	return s
}

// Summary digests the take, reading its frame index for the seeded frames
// and the tabs they show.
func (tk *Take) Summary() (Summary, error) {
	s := Summarize(tk.Timeline)
	s.Frames.ByTab = map[string]int{}
	for fr, err := range tk.Frames() {
		if err != nil {
			return s, err
		}
		if fr.Seeded {
			s.Frames.Seeded++
		}
		s.Frames.ByTab[fr.Tab]++
	}
	if m, err := ReadManifest(tk.Dir); err == nil && m.Pruned != nil {
		s.Pruned = PrunedWarning(m.Pruned)
	}
	return s, nil
}

// OptionalFailures says in one line which optional steps failed, as
// file:line (kind): the first line of the error, or "" when none did: a
// run whose optional steps failed still passes, and this line is how it
// says so. Pure.
func OptionalFailures(t *Timeline) string {
	var parts []string
	for _, st := range t.Steps {
		if !st.Optional || st.Outcome == OutcomeOK || st.Outcome == "" {
			continue
		}
		msg, _, _ := strings.Cut(st.Error, "\n")
		if len(msg) > 120 {
			msg = msg[:119] + "…"
		}
		parts = append(parts, fmt.Sprintf("%s:%d (%s): %s", filepath.Base(st.File), st.Line, st.Kind, msg))
	}
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return "1 optional step failed: " + parts[0]
	}
	return fmt.Sprintf("%d optional steps failed: %s", len(parts), strings.Join(parts, "; "))
}
