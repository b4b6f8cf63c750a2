package viewer

import (
	"github.com/clapper-dev/clapper/timeline"
)

// Data is what the report's script renders: the take digested into
// milliseconds since the take's start.
type Data struct {
	Name       string            `json:"name"`
	Outcome    string            `json:"outcome"`
	Error      string            `json:"error,omitempty"`
	Script     string            `json:"script,omitempty"`
	Tool       string            `json:"tool"`
	Chromium   string            `json:"chromium,omitempty"`
	Revision   string            `json:"revision,omitempty"`
	Started    string            `json:"started,omitempty"`
	Verified   string            `json:"verified"`
	DurationMs float64           `json:"duration_ms"`
	Viewport   timeline.Viewport `json:"viewport"`
	Steps      []Step            `json:"steps"`
	Documents  []Document        `json:"documents"`
	Holds      []Interval        `json:"holds"`
	Pointer    []Pointer         `json:"pointer"`
	Frames     []Frame           `json:"frames"`
	Accounting Accounting        `json:"accounting"`
	Cleanup    *timeline.Cleanup `json:"cleanup,omitempty"`
	Recovered  string            `json:"recovered,omitempty"`
	// Events is what the pages said (nil for a take that does not record
	// it); EventsDropped what the bounded log did not keep.
	Events        []Event `json:"events,omitempty"`
	EventsDropped int64   `json:"events_dropped,omitempty"`
	// Mode is how frames are carried: "embedded" or "folder".
	Mode string `json:"mode"`
	// FramesDir is the folder, relative to the report, of folder mode.
	FramesDir string `json:"frames_dir,omitempty"`
}

// Step is one step of the run.
type Step struct {
	N           int     `json:"n"` // 1-based, as clapper prints it
	Kind        string  `json:"kind"`
	Label       string  `json:"label,omitempty"`
	Target      string  `json:"target,omitempty"`
	Text        string  `json:"text,omitempty"`
	File        string  `json:"file,omitempty"`
	Line        int     `json:"line"`
	Col         int     `json:"col"`
	Outcome     string  `json:"outcome"`
	Error       string  `json:"error,omitempty"`
	Optional    bool    `json:"optional,omitempty"`
	Expectation bool    `json:"expectation,omitempty"`
	Failed      bool    `json:"failed,omitempty"`
	StartMs     float64 `json:"start"`
	EndMs       float64 `json:"end"`
	// Late says why the step's timed parts ran late, when they did.
	Late string `json:"late,omitempty"`
}

// Document is one committed document.
type Document struct {
	N     int     `json:"n"`
	URL   string  `json:"url"`
	Title string  `json:"title,omitempty"`
	AtMs  float64 `json:"at"`
}

// Interval is a hold.
type Interval struct {
	Tab     string  `json:"tab"`
	StartMs float64 `json:"start"`
	EndMs   float64 `json:"end"`
}

// Pointer is a pointer receipt: where the pointer was commanded, and
// whether it pressed.
type Pointer struct {
	Kind string  `json:"k"`
	X    float64 `json:"x"`
	Y    float64 `json:"y"`
	AtMs float64 `json:"t"`
	Tab  string  `json:"tab,omitempty"`
}

// Frame is one delivered frame.
type Frame struct {
	Seq  int64   `json:"seq"`
	AtMs float64 `json:"t"`
	Doc  int     `json:"doc"`
	Tab  string  `json:"tab,omitempty"`
	W    int     `json:"w"`
	H    int     `json:"h"`
	// Thumb is the index of the frame's filmstrip picture, -1 for none.
	Thumb int `json:"thumb"`
	// Src is the frame's file relative to the report (folder mode).
	Src string `json:"src,omitempty"`
}

// Event is a console message, uncaught error or request.
type Event struct {
	Kind   string  `json:"kind"`
	Level  string  `json:"level,omitempty"`
	Text   string  `json:"text,omitempty"`
	Source string  `json:"source,omitempty"`
	Stack  string  `json:"stack,omitempty"`
	AtMs   float64 `json:"t"`
	EndMs  float64 `json:"end,omitempty"`
	Method string  `json:"method,omitempty"`
	URL    string  `json:"url,omitempty"`
	Type   string  `json:"type,omitempty"`
	Status int     `json:"status,omitempty"`
	Failed string  `json:"failed,omitempty"`
	Tab    string  `json:"tab,omitempty"`
}

// Accounting is the capture's frame accounting.
type Accounting struct {
	timeline.Accounting
	PerSecond float64 `json:"per_second"`
	Seeded    int64   `json:"seeded"`
	EndReason string  `json:"end_reason"`
}

func ms(t timeline.Time, start timeline.Time) float64 {
	return float64(t-start) / 1e6
}

// stepFailed says whether a step is shown as failed: it did not end ok
// and was not optional, or it was an expectation that did not hold.
func stepFailed(st timeline.Step) bool {
	switch st.Outcome {
	case timeline.OutcomeOK, timeline.OutcomeSkipped:
		return false
	}
	return !st.Optional || st.Traits.Expectation
}

// Model digests a timeline for the report (frames are added by the
// writer, which streams them). Pure.
func Model(t *timeline.Timeline) Data {
	d := Data{
		Name: t.Name, Outcome: string(t.Outcome), Error: t.Error, Script: t.Script, Tool: t.Tool,
		DurationMs: ms(t.End, t.Start), Viewport: t.Viewport, Cleanup: t.Cleanup,
		Steps: []Step{}, Documents: []Document{}, Holds: []Interval{}, Pointer: []Pointer{}, Frames: []Frame{},
	}
	if !t.Clock.Wall.IsZero() {
		d.Started = t.Clock.Wall.UTC().Format("2006-01-02 15:04:05 MST")
	}
	if t.Recovered != nil {
		d.Recovered = t.Recovered.Reason
	}
	a := t.Capture.Frames
	d.Accounting = Accounting{Accounting: a, EndReason: t.Capture.EndReason}
	if s := (t.Capture.Ended - t.Capture.Started).Seconds(); s > 0 {
		d.Accounting.PerSecond = float64(a.Received) / s
	}
	for _, st := range t.Steps {
		if st.Hidden {
			continue
		}
		d.Steps = append(d.Steps, Step{
			N: st.Index + 1, Kind: st.Kind, Label: st.Label, Target: st.Target, Text: st.Text, File: st.File, Line: st.Line, Col: st.Col,
			Outcome: string(st.Outcome), Error: st.Error, Optional: st.Optional, Expectation: st.Traits.Expectation,
			Failed: stepFailed(st), StartMs: ms(st.Start, t.Start), EndMs: ms(st.End, t.Start), Late: lateText(st.Late),
		})
	}
	for _, b := range t.Boundaries {
		u := "(an address longer than 8192 characters)"
		if b.URL != nil {
			u = *b.URL
		}
		d.Documents = append(d.Documents, Document{N: b.Document, URL: u, Title: b.Title, AtMs: ms(b.At, t.Start)})
	}
	for _, h := range t.Holds {
		end := h.End
		if end == 0 {
			end = t.End
		}
		d.Holds = append(d.Holds, Interval{Tab: h.Tab, StartMs: ms(h.Start, t.Start), EndMs: ms(end, t.Start)})
	}
	if p := t.Page; p != nil {
		d.Events, d.EventsDropped = []Event{}, p.Dropped
		for _, e := range p.Events {
			ev := Event{Kind: e.Kind, Level: e.Level, Text: e.Text, Source: e.Source, Stack: e.Stack, AtMs: ms(e.At, t.Start),
				Method: e.Method, URL: e.URL, Type: e.Type, Status: e.Status, Failed: e.Failed, Tab: e.Tab}
			if e.End != 0 {
				ev.EndMs = ms(e.End, t.Start)
			}
			if e.Kind == timeline.PageRequest && e.Bad() {
				ev.Level = "error"
			}
			if e.Kind == timeline.PageDialog {
				ev.Text = e.Dialog + " dialog: " + e.Text + " (" + e.Answer + ")"
			}
			d.Events = append(d.Events, ev)
		}
	}
	for _, r := range t.Receipts {
		switch r.Kind {
		case timeline.InputMove, timeline.InputDown, timeline.InputUp:
			d.Pointer = append(d.Pointer, Pointer{Kind: r.Kind, X: r.X, Y: r.Y, AtMs: ms(r.Sent, t.Start), Tab: r.Tab})
		}
	}
	return d
}

// lateText says a step's lateness in a sentence ("" when it was on time).
func lateText(l *timeline.Late) string {
	if l == nil {
		return ""
	}
	return "ran late: " + l.Text()
}
