package timeline

import (
	"fmt"
	"time"
)

// Version is the schema version of timeline.json this package writes.
// Version 2 records each step's traits; version 1 takes are read with the
// traits their steps had then (upgradeV1). Readers refuse other versions
// with an error saying which they found.
const Version = 2

// v1Traits are the traits each kind of step had when takes did not record
// them (version 1). Frozen: version 2 takes carry their own.
var v1Traits = map[string]Traits{
	"goto": {ChangesPage: true, Waits: true}, "back": {ChangesPage: true, Waits: true},
	"forward": {ChangesPage: true, Waits: true}, "reload": {ChangesPage: true, Waits: true},
	"click": {ChangesPage: true, Focus: true}, "type": {ChangesPage: true, Focus: true}, "fill": {ChangesPage: true, Focus: true},
	"drag": {ChangesPage: true}, "press": {ChangesPage: true}, "select": {ChangesPage: true}, "check": {ChangesPage: true},
	"uncheck": {ChangesPage: true}, "scroll": {ChangesPage: true}, "upload": {ChangesPage: true}, "eval": {ChangesPage: true},
	"wait": {Waits: true}, "expect": {Waits: true, Expectation: true},
	"pause": {Presentation: true}, "chapter": {Presentation: true}, "caption": {Presentation: true}, "cursor": {Presentation: true},
	"zoom": {Presentation: true}, "hold": {Presentation: true}, "resume": {Presentation: true}, "tab": {ChangesPage: true, Presentation: true},
}

// upgradeV1 brings a version 1 timeline to this version in memory.
func upgradeV1(t *Timeline) {
	for i := range t.Steps {
		t.Steps[i].Traits = v1Traits[t.Steps[i].Kind]
	}
	t.Version = Version
}

// Timeline is the content of timeline.json. Frames live beside it in
// frames.jsonl; everything else is here.
type Timeline struct {
	Version int    `json:"version"`
	Name    string `json:"name"`
	Script  string `json:"script,omitempty"`
	// Served is the origin of the run's own sample site (serve:), e.g.
	// "http://3f…c1.localhost:40969" (session.Serve); "" when the script serves none.
	Served   string    `json:"served,omitempty"`
	Tool     string    `json:"tool"`
	Clock    Clock     `json:"clock"`
	Viewport Viewport  `json:"viewport"`
	Start    Time      `json:"start"`
	End      Time      `json:"end"`
	Capture  Capture   `json:"capture"`
	Steps    []Step    `json:"steps"`
	Receipts []Receipt `json:"receipts"`
	// Boundaries lists document boundaries in commit order; document 0 is
	// the initial document.
	Boundaries []Boundary `json:"boundaries"`
	Holds      []Hold     `json:"holds"`
	Cleanup    *Cleanup   `json:"cleanup,omitempty"`
	// Page is what the pages said: console, uncaught errors, requests.
	Page *PageLog `json:"page,omitempty"`
	// Outcome is how the run ended; Error says why when it is not ok.
	Outcome RunOutcome `json:"outcome"`
	Error   string     `json:"error,omitempty"`
	// Recovered is set when the timeline was rebuilt from the take's
	// journal (the run never wrote timeline.json), and says why.
	Recovered *Recovery `json:"recovered,omitempty"`
}

// Viewport is the page's size in CSS pixels and its device scale factor.
type Viewport struct {
	Width  int     `json:"width"`
	Height int     `json:"height"`
	Scale  float64 `json:"scale"`
}

// Duration returns the length of the take.
func (t *Timeline) Duration() time.Duration { return time.Duration(t.End - t.Start) }

// Capture is the recorder's account of one screencast.
type Capture struct {
	Tab string `json:"tab"`
	// Started and Ended bound the capture interval on the take clock.
	Started Time `json:"started"`
	Ended   Time `json:"ended"`
	// EndReason is "stopped" for a clean stop, or what ended it (a crash, a
	// closed target, a disk error, a clock error).
	EndReason string     `json:"end_reason"`
	Frames    Accounting `json:"frames"`
	// Attribution says how frames were attributed to documents.
	Attribution string `json:"attribution"`
	// BufferFrames and BufferBytes are the bounds of the spool buffer.
	BufferFrames int    `json:"buffer_frames"`
	BufferBytes  int64  `json:"buffer_bytes"`
	Format       string `json:"format"`
	Quality      int    `json:"quality"`
	// Mode is how the page was filmed: CaptureLive or CaptureStudio; ""
	// in takes written before studio capture existed (live).
	Mode string `json:"mode,omitempty"`
	// FrameInterval is a studio capture's step of virtual time per frame.
	FrameInterval time.Duration `json:"frame_interval,omitempty"`
	// Repeats counts a studio capture's begin-frames that came back
	// without damage: the page did not change, so no frame was stored and
	// the last picture stands for them.
	Repeats int64 `json:"repeats,omitempty"`
	// Pictures is how a studio capture had its frames' pictures:
	// PicturesScreencast (the screencast beside the frame pump) or
	// PicturesScreenshot (with each begin-frame: asked for, or because
	// the screencast could not start or failed the capture).
	Pictures string `json:"pictures,omitempty"`
	// Missed counts a studio capture's frames that drew something whose
	// picture never came: the take shows the picture before each. After
	// the first, the capture took its pictures with its begin-frames.
	Missed int64 `json:"missed,omitempty"`
	// Settled counts how the pictures of the settled page after steps were
	// had (absent in takes that never asked for one).
	Settled *Settled `json:"settled,omitempty"`
	// Restarts counts how often a live capture started its screencast
	// anew (handed over to the tab's other CDP session): after each 750 ms
	// of steady frames, so that Chromium's capturer never locks onto one
	// animated region and skips the frames that damage another
	// (recorder/restart.go). Frames both screencasts sent while they
	// overlapped are counted as duplicates.
	Restarts int64 `json:"restarts,omitempty"`
}

// Settled counts the settled pictures of a capture: Frames came through
// the screencast (one more frame asked of the compositor), Screenshots
// were taken because none came in time (they are seeded frames).
type Settled struct {
	Frames      int64 `json:"frames"`
	Screenshots int64 `json:"screenshots"`
}

// How a studio capture had its pictures (Capture.Pictures).
const (
	PicturesScreencast = "screencast"
	PicturesScreenshot = "screenshot"
)

// Capture modes.
const (
	// CaptureLive: the page runs in real time, filmed by the screencast.
	CaptureLive = "live"
	// CaptureStudio: clapper drives the page's clock with begin-frames.
	CaptureStudio = "studio"
)

// Accounting is the frame accounting of a capture:
//
//	received  = delivered + discarded
//	discarded = overflow + late + duplicates + rejected
type Accounting struct {
	Received   int64 `json:"received"`
	Delivered  int64 `json:"delivered"`
	Overflow   int64 `json:"overflow"`
	Late       int64 `json:"late"`
	Duplicates int64 `json:"duplicates"`
	Rejected   int64 `json:"rejected"`
	// Upstream is what Chromium dropped before sending: unknowable, so
	// always "unknown", never zero.
	Upstream string `json:"upstream"`
}

// Add counts b's frames into a (the captures of one take, one after
// another); Upstream stays a's.
func (a *Accounting) Add(b Accounting) {
	a.Received += b.Received
	a.Delivered += b.Delivered
	a.Overflow += b.Overflow
	a.Late += b.Late
	a.Duplicates += b.Duplicates
	a.Rejected += b.Rejected
}

// Discarded returns the sum of the four discard buckets.
func (a Accounting) Discarded() int64 { return a.Overflow + a.Late + a.Duplicates + a.Rejected }

// Balanced reports whether the accounting equations hold.
func (a Accounting) Balanced() bool {
	return a.Received == a.Delivered+a.Discarded() && a.Received >= 0 &&
		a.Delivered >= 0 && a.Overflow >= 0 && a.Late >= 0 && a.Duplicates >= 0 && a.Rejected >= 0
}

// Frame is one delivered screencast frame, a line of frames.jsonl.
type Frame struct {
	Seq      int64  `json:"seq"`
	Tab      string `json:"tab,omitempty"`
	Document int    `json:"document"`
	// Source is when Chromium produced the frame, mapped to the take clock;
	// Received is when it arrived at the host. Never confused.
	Source   Time `json:"source"`
	Received Time `json:"received"`
	// Width and Height are the JPEG's pixel size.
	Width  int `json:"width"`
	Height int `json:"height"`
	// Page geometry from the screencast metadata, in CSS pixels / DIP.
	OffsetTop       float64 `json:"offset_top"`
	PageScaleFactor float64 `json:"page_scale"`
	ScrollX         float64 `json:"scroll_x"`
	ScrollY         float64 `json:"scroll_y"`
	DeviceWidth     float64 `json:"device_width"`
	DeviceHeight    float64 `json:"device_height"`
	Bytes           int     `json:"bytes"`
	// File is relative to the take folder, e.g. "frames/000042.jpg".
	File string `json:"file"`
	// Seeded marks a frame the recorder took itself (a screenshot at the
	// start or the end), not one the screencast sent.
	Seeded bool `json:"seeded,omitempty"`
}

// Step is one executed step of the run script.
type Step struct {
	Index   int     `json:"index"`
	File    string  `json:"file,omitempty"`
	Line    int     `json:"line"`
	Col     int     `json:"col"`
	Kind    string  `json:"kind"`
	Label   string  `json:"label,omitempty"`
	Tab     string  `json:"tab,omitempty"`
	Start   Time    `json:"start"`
	End     Time    `json:"end"`
	Outcome Outcome `json:"outcome"`
	Error   string  `json:"error,omitempty"`
	// Traits are what the script language says of the step's kind, so that
	// readers of a take need no list of kinds of their own.
	Traits Traits `json:"traits"`
	// Target is what the step acted on (a selector, a URL), with secrets masked.
	Target   string `json:"target,omitempty"`
	Optional bool   `json:"optional,omitempty"`
	Hidden   bool   `json:"hidden,omitempty"`
	// Text is presentation text: a caption, a chapter title.
	Text string `json:"text,omitempty"`
	// Duration is a presentation duration (caption, zoom), in ns.
	Duration time.Duration `json:"duration,omitempty"`
	// Region is an area of the page in CSS pixels the step acted on (the
	// target's box), for zoom.
	Region *Rect `json:"region,omitempty"`
	// Scale is a zoom factor for zoom steps.
	Scale float64 `json:"scale,omitempty"`
	// Masks are the regions of the page (CSS pixels) the script's mask
	// covered when the step ended: what a comparison of takes leaves out
	// (clocks, avatars).
	Masks []Rect `json:"masks,omitempty"`
	// Late is set when the step's timed parts (its pointer paths, a
	// wheel scroll, typing with a delay) ended more than a tenth, and
	// more than 50 ms, after their own time: by how much, and what held
	// them up. Recorded in live capture only: in studio capture time
	// waits for the page, so a part takes the frames its inputs need,
	// which is the footage's own time.
	Late *Late `json:"late,omitempty"`
}

// Late is why a step's timed parts took longer than they said. They are
// paced by the clock (a path's or a scroll's points whose time passed go
// out as one input with the next; a late key is followed at once by the
// keys due), so they run late only when the browser is slow to take
// input, the page is slow to answer between inputs, or the machine is
// too busy for the timers. The page's turn and the beat before a step's
// first input come before its parts, and do not count.
type Late struct {
	// Planned is the parts' own time: the paths at the pointer's speed,
	// the scroll's duration, the delays between keys. Took is what they
	// took, on the take's clock.
	Planned time.Duration `json:"planned"`
	Took    time.Duration `json:"took"`
	// Inputs is the number of input events sent in them; Acks the time
	// the browser took to take them (each from sent to acknowledged,
	// summed) and Longest the longest one.
	Inputs  int           `json:"inputs"`
	Acks    time.Duration `json:"acks"`
	Longest time.Duration `json:"longest"`
	// Slow counts the inputs that took the browser longer than a 60 Hz
	// frame, and Beyond sums their time past that frame: what the
	// browser held the parts up by.
	Slow   int           `json:"slow"`
	Beyond time.Duration `json:"beyond"`
	// Turns is the time the page took between inputs: its turns between
	// keys, its answers during a drag.
	Turns time.Duration `json:"turns"`
	// Why says it in words.
	Why string `json:"why"`
}

// Text says the lateness in a sentence: "its timed parts took 1.76s for
// their own 1.44s; " and why.
func (l *Late) Text() string {
	return fmt.Sprintf("its timed parts took %.2fs for their own %.2fs; %s", l.Took.Seconds(), l.Planned.Seconds(), l.Why)
}

// Traits are the language's facts about a kind of step (scripts' step
// table), recorded with each step.
type Traits struct {
	// ChangesPage: the page may look different after the step.
	ChangesPage bool `json:"changes_page,omitempty"`
	// Presentation: the step only shapes the video.
	Presentation bool `json:"presentation,omitempty"`
	// Waits: the step's time is spent waiting on the page.
	Waits bool `json:"waits,omitempty"`
	// Expectation: the step asserts what the page shows.
	Expectation bool `json:"expectation,omitempty"`
	// Focus: the step acts on an element the viewer should look at.
	Focus bool `json:"focus,omitempty"`
	// Cut: the step's interval is cut from the video (a human handoff);
	// the take keeps it.
	Cut bool `json:"cut,omitempty"`
}

// Outcome is how far a step's effects went.
type Outcome string

// Step outcomes.
const (
	// OutcomeOK: the step did what it says.
	OutcomeOK Outcome = "ok"
	// OutcomeUndispatched: nothing was sent to the page; safe to retry.
	OutcomeUndispatched Outcome = "undispatched"
	// OutcomeRejected: the browser refused what was sent.
	OutcomeRejected Outcome = "rejected"
	// OutcomeUnknown: sent, with an unknown result; never replayed.
	OutcomeUnknown Outcome = "unknown"
	// OutcomeSkipped: the step did not run.
	OutcomeSkipped Outcome = "skipped"
)

// RunOutcome is how a whole run ended.
type RunOutcome string

// Run outcomes.
const (
	// RunOK: every non-optional step passed.
	RunOK RunOutcome = "ok"
	// RunFailed: a step failed.
	RunFailed RunOutcome = "failed"
	// RunInterrupted: the run was cancelled (Ctrl-C, a signal).
	RunInterrupted RunOutcome = "interrupted"
	// RunError: the run could not start or broke outside the steps.
	RunError RunOutcome = "error"
	// RunUnknown: a step failed leaving a tab in a state nobody knows (a
	// hold or resume failed half way: the tab was fenced).
	RunUnknown RunOutcome = "unknown"
	// RunAborted: the run ended abruptly (killed), before it finished its
	// record; the timeline was recovered from the journal.
	RunAborted RunOutcome = "aborted"
)

// Rect is a rectangle in CSS pixels.
type Rect struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
	W float64 `json:"w"`
	H float64 `json:"h"`
}

// Receipt kinds.
const (
	InputMove  = "move"
	InputDown  = "down"
	InputUp    = "up"
	InputWheel = "wheel"
	InputKey   = "key"
	// PointerShape is no input: the page's cursor under a pointer that did
	// not move, read again when its tab showed a new document (Sent and
	// Acked are when it was read), so the video's cursor takes the shape
	// of what the new page has under it.
	PointerShape = "shape"
)

// Receipt records one input event the session commanded. It never claims the
// page reacted, and never holds the text of a secret.
type Receipt struct {
	Kind string `json:"kind"`
	Tab  string `json:"tab,omitempty"`
	// X and Y are the commanded position in CSS pixels of the viewport.
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Button string  `json:"button,omitempty"`
	Clicks int     `json:"clicks,omitempty"`
	DeltaX float64 `json:"dx,omitempty"`
	DeltaY float64 `json:"dy,omitempty"`
	// Key is the key name ("a", "Enter"); "•" when the text is secret.
	Key  string `json:"key,omitempty"`
	Type string `json:"type,omitempty"` // keyDown, rawKeyDown, keyUp; insertText (a character typed that is not on the layout), fill (a value filled)
	// Sent and Acked bound the command on the take clock.
	Sent  Time `json:"sent"`
	Acked Time `json:"acked"`
	// Step is the index of the step that sent it.
	Step int `json:"step"`
	// Cursor is the page's CSS cursor under the pointer, where known.
	Cursor string `json:"cursor,omitempty"`
	Error  string `json:"error,omitempty"`
	// Closed says the page closed before it answered (a sign-in window
	// whose button closes it): Acked is when the browser said so. The
	// input was sent; whether the page took it before it closed is not
	// known. It is no error of the input.
	Closed bool `json:"closed,omitempty"`
}

// Boundary is a main-frame commit in the captured tab.
type Boundary struct {
	Document int `json:"document"`
	// LastSeq is the sequence number of the last frame received before the
	// commit, -1 when none was.
	LastSeq int64 `json:"last_seq"`
	// URL is the committed address; nil when it was longer than 8192
	// characters (recorded as null, never truncated).
	URL   *string `json:"url"`
	Title string  `json:"title,omitempty"`
	At    Time    `json:"at"`
	// Tab is the filmed tab from this boundary on; a boundary whose tab
	// differs from the one before is a change of filmed tab, a cut.
	// "" in takes written before it was recorded.
	Tab string `json:"tab,omitempty"`
}

// MaxURL is the longest URL a boundary records.
const MaxURL = 8192

// BoundaryURL returns the URL to record for a commit: nil past MaxURL.
func BoundaryURL(u string) *string {
	if len(u) > MaxURL {
		return nil
	}
	return &u
}

// Hold is a stage tab frozen for presentation.
type Hold struct {
	Tab     string `json:"tab"`
	Receipt string `json:"receipt"`
	Start   Time   `json:"start"`
	End     Time   `json:"end"`
	// Max is the hold's bound, in ns (0: none): it resumes itself then.
	Max time.Duration `json:"max,omitempty"`
	// Rate is the animation playback rate the hold found and resume
	// restores (omitted when it was 1).
	Rate float64 `json:"rate,omitempty"`
	// Ended says what ended the hold: HoldResumed, HoldBound, HoldRun or
	// HoldFenced ("" in takes written before it was recorded).
	Ended string `json:"ended,omitempty"`
	// Error says why a fenced hold's tab is uncertain.
	Error string `json:"error,omitempty"`
}

// What ended a hold.
const (
	// HoldResumed: a resume step consumed its receipt.
	HoldResumed = "resume"
	// HoldBound: the hold reached its max and resumed itself.
	HoldBound = "bound"
	// HoldRun: the run ended with the tab still held (the session let go
	// of it while cleaning up).
	HoldRun = "run"
	// HoldFenced: freezing or resuming failed half way; the tab's state is
	// unknown and the run failed.
	HoldFenced = "fenced"
)

// Cleanup is the receipt of an owned browser's cleanup.
type Cleanup struct {
	Connection string `json:"connection"` // closed, lost
	Process    string `json:"process"`    // exited, killed, not-owned
	Profile    string `json:"profile"`    // removed, kept: reason, not-owned
	At         Time   `json:"at"`
}
