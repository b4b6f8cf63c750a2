package scripts

import (
	"strings"
	"time"

	"github.com/clapper-dev/clapper/internal/outrules"
)

// Pos is a position in a script file, 1-based.
type Pos struct {
	File string
	Line int
	Col  int
}

// Script is a parsed, validated run script. Every string in it has its
// ${VARS} resolved except ${serve.url}, which BindServe fills once the
// sample site is listening.
type Script struct {
	Name string
	// File is the absolute path of the script.
	File    string
	Browser Browser
	Serve   string // absolute folder to serve on loopback (session.Serve), "" for none
	Env     map[string]string
	Secrets []string // names of secret variables
	// Masks are what changes by nature on the pages (a clock, an avatar):
	// each step records their boxes, which a comparison of takes leaves
	// out.
	Masks []Mask
	// Dialogs is how the pages' alert, confirm and prompt dialogs are
	// answered when no dialog step said: DialogsDismiss or DialogsAccept.
	Dialogs  string
	Output   Output
	Defaults Defaults
	Steps    []Step
	// masker hides the secret variables' values (Mask).
	masker masker
}

// Browser is the script's browser section.
type Browser struct {
	Width     int     // CSS pixels, default 1280
	Height    int     // default 720
	Scale     float64 // device scale factor, default 1
	Headless  bool    // default true
	Chromium  string  // executable path, "" to search
	Args      []string
	Attach    string // loopback ws:// endpoint of a running browser, or AttachShared
	Claim     string // a tab already open in the attached browser, taken over (active, index:N, url:…, title:…, an id)
	Close     *bool  // in a shared browser, whether the tabs given back are closed; nil: those clapper opened
	NoSandbox bool   // explicit choice; never inferred
	// Capture is CaptureLive or CaptureStudio as the script says, "" when
	// it leaves the choice to the run.
	Capture string
}

// Answers of the script's dialogs: policy.
const (
	DialogsDismiss = "dismiss"
	DialogsAccept  = "accept"
)

// Capture modes of browser.capture.
const (
	CaptureLive   = "live"
	CaptureStudio = "studio"
)

// Output is the script's output section, consumed by the compositor.
type Output struct {
	Video []string // file names relative to the output folder
	FPS   int      // 0: the preset's rate, else 30
	// Width and Height of the video; 0 means the capture size.
	Width  int
	Height int
	// Preset names a render preset ("" for none).
	Preset string
	// Options holds the remaining render settings (cursor, zoom, frame,
	// keys, captions...), checked and typed, secrets masked, and
	// OptionPos where each key stands, for its errors.
	Options   outrules.Values
	OptionPos map[string]Pos
	// given are the options as read, until Load decodes them.
	given map[string]any
}

// Defaults are per-script step defaults.
type Defaults struct {
	Timeout      time.Duration // default 10s
	TypeDelay    time.Duration // per key, default 60ms
	PointerSpeed float64       // CSS pixels per second, default 1400
	// Beat is the least time between the last input of a step and the
	// first of the next (DefaultBeat); 0 for none.
	Beat time.Duration
}

// DefaultBeat is Defaults.Beat when the script does not set it: a
// person's pause between two actions, short enough not to slow a video.
const DefaultBeat = 100 * time.Millisecond

// Step is one step of the script.
type Step struct {
	Pos      Pos
	Kind     string // the step's key: "goto", "click", ...
	Label    string
	Timeout  time.Duration // 0: Defaults.Timeout
	Optional bool
	Hidden   bool
	Tab      string // "" for the current tab
	Retries  int    // retries of an undispatched failure
	// Traits are the step kind's row of the language's table.
	Traits Traits
	Action Action
}

// Traits are what the language says of a kind of step. Everyone who needs
// to know whether a step changes the page, waits, asserts or only shapes
// the video reads these (the session from the script, the compositor and
// JUnit from the take) instead of keeping a list of kinds.
type Traits struct {
	// ChangesPage: the page may look different after the step.
	ChangesPage bool
	// Presentation: the step only shapes the video, so it may run while
	// its tab is held.
	Presentation bool
	// Waits: the step's time is spent waiting on the page (a long wait may
	// play faster in the video).
	Waits bool
	// Expectation: the step asserts what the page shows (a test case).
	Expectation bool
	// Focus: the step acts on an element the viewer should look at
	// (automatic zoom goes toward it).
	Focus bool
	// Cut: the step's interval is cut from the video and kept in the take
	// (a human handoff).
	Cut bool
}

// traitsOf returns the traits of a step kind (none for an unknown kind).
func traitsOf(kind string) Traits {
	if s := stepByName[kind]; s != nil {
		return s.traits
	}
	return Traits{}
}

// Action is the typed body of a step; one concrete type per step kind.
type Action interface{ Kind() string }

// Target selects an element. Exactly one way of selecting is set. A plain
// string in a script is CSS.
type Target struct {
	CSS         string
	XPath       string
	Text        string
	Role        string
	Name        string // accessible name, with Role
	Label       string
	Placeholder string
	Alt         string // an image's alt text
	Title       string // the title attribute
	TestID      string
	// Nth picks one of several matches (0-based); nil means exactly one
	// must match.
	Nth *int
	// Exact makes text, a role's name, a label and a placeholder match
	// the whole text, case-sensitively, instead of Playwright's default:
	// a case-insensitive substring, white space folded.
	Exact bool
	// Visible keeps only the matches that are visible (Playwright's
	// filter({visible: true})).
	Visible bool
	// Frames are the iframes the element lives in, outermost first (none:
	// the tab's own document).
	Frames []Target
}

// String renders the target for people: `#save`, `text="Sign in"`.
func (t Target) String() string {
	var s string
	switch {
	case t.CSS != "":
		s = t.CSS
	case t.XPath != "":
		s = "xpath=" + t.XPath
	case t.Text != "":
		s = `text="` + t.Text + `"`
	case t.Role != "":
		s = "role=" + t.Role
		if t.Name != "" {
			s += `[name="` + t.Name + `"]`
		}
	case t.Label != "":
		s = `label="` + t.Label + `"`
	case t.Placeholder != "":
		s = `placeholder="` + t.Placeholder + `"`
	case t.Alt != "":
		s = `alt="` + t.Alt + `"`
	case t.Title != "":
		s = `title="` + t.Title + `"`
	case t.TestID != "":
		s = "testid=" + t.TestID
	}
	if t.Exact {
		s += " >> exact"
	}
	if t.Visible {
		s += " >> visible=true"
	}
	if t.Nth != nil {
		s += " >> nth=" + itoa(*t.Nth)
	}
	for i := len(t.Frames) - 1; i >= 0; i-- {
		s = t.Frames[i].String() + " >> frame >> " + s
	}
	return s
}

func itoa(i int) string {
	var b strings.Builder
	if i < 0 {
		b.WriteByte('-')
		i = -i
	}
	d := []byte{}
	for {
		d = append([]byte{byte('0' + i%10)}, d...)
		i /= 10
		if i == 0 {
			break
		}
	}
	b.Write(d)
	return b.String()
}

// Mask is one thing a comparison of takes leaves out: the elements a
// target matches, or a region of the viewport. Exactly one is set.
type Mask struct {
	Target *Target
	Region *Rect
}

// Point is a position in CSS pixels of the viewport.
type Point struct{ X, Y float64 }

// The step actions of the first subset.
type (
	Goto  struct{ URL string }
	Click struct {
		Target Target
		// At is the point to click, relative to the element's top-left
		// corner (nil: a point inside the element, as Playwright aims).
		At *Point
		// Point, when set, is a point of the viewport to click instead of
		// an element.
		Point     *Point
		Button    string // left (default), right, middle
		Count     int    // 1 (default), 2 for a double click, 3 for a triple
		Modifiers []string
	}
	Type struct {
		Into  *Target // nil: the focused element
		Text  string
		Delay time.Duration // per key; 0: Defaults.TypeDelay
		// Secret is true when Text holds a secret's value: receipts, logs
		// and overlays must not show it.
		Secret bool
	}
	Press struct {
		Key   string // as written: "Enter", "Control+A"
		Chord Chord  // Key parsed
		Into  *Target
	}
	Wait struct {
		Target      *Target
		State       string // visible (default), hidden, attached, detached
		Text        string
		URL         string // glob
		JS          string
		NetworkIdle bool
	}
	Pause struct{ Duration time.Duration }
)

func (Goto) Kind() string  { return "goto" }
func (Click) Kind() string { return "click" }
func (Type) Kind() string  { return "type" }
func (Press) Kind() string { return "press" }
func (Wait) Kind() string  { return "wait" }
func (Pause) Kind() string { return "pause" }

// Place is a spot on the page: an element (its centre) or a viewport point
// in CSS pixels. Exactly one of Target and Point is set.
type Place struct {
	Target *Target
	Point  *Point
}

// Rect is a region of the viewport in CSS pixels.
type Rect struct{ X, Y, W, H float64 }

// Tab operations.
const (
	TabOpen   = "open"
	TabPopup  = "popup"
	TabSwitch = "switch"
	TabClose  = "close"
)

// Expect conditions.
const (
	ExpectVisible   = "visible"
	ExpectHidden    = "hidden"
	ExpectText      = "text"
	ExpectValue     = "value"
	ExpectURL       = "url"
	ExpectTitle     = "title"
	ExpectCount     = "count"
	ExpectChecked   = "checked"
	ExpectUnchecked = "unchecked"
	ExpectEnabled   = "enabled"
	ExpectDisabled  = "disabled"
	ExpectEditable  = "editable"
	ExpectFocused   = "focused"
	ExpectAttribute = "attribute"
	ExpectJS        = "js"
)

// ExpectConditions are the conditions of expect, in the order the docs
// list them.
var ExpectConditions = []string{ExpectVisible, ExpectHidden, ExpectText, ExpectValue, ExpectURL, ExpectTitle,
	ExpectCount, ExpectChecked, ExpectUnchecked, ExpectEnabled, ExpectDisabled, ExpectEditable, ExpectFocused,
	ExpectAttribute, ExpectJS}

// The remaining step actions.
type (
	// Back goes back in the tab's history.
	Back struct{}
	// Forward goes forward in the tab's history.
	Forward struct{}
	// Reload reloads the tab's document.
	Reload struct{}

	// Hover moves the pointer onto the target, with real input events.
	Hover struct{ Target Target }
	// Move moves the pointer to a place, with real input events.
	Move struct{ To Place }
	// Drag presses the left button at From, moves to To (or By so far
	// from where it pressed) with the button held, and releases.
	Drag struct {
		From, To Place
		By       *Point
	}
	// Fill sets the value of a form field at once (no key events).
	Fill struct {
		Into  Target
		Value string // may be empty: clears the field
		// Secret is true when Value holds a secret's value.
		Secret bool
	}
	// Select picks options of a <select>, by their labels, their values
	// or one index: exactly one of the three is given; several labels or
	// values select several options of a <select multiple>.
	Select struct {
		Into   Target
		Labels []string // the options' visible texts
		Values []string // the options' value attributes
		Index  *int     // the option's index among all the options
	}
	// Check ticks a checkbox or radio button (no-op when already ticked).
	Check struct{ Target Target }
	// Uncheck clears a checkbox (no-op when already clear).
	Uncheck struct{ Target Target }
	// Scroll scrolls the page, or the element In, with real wheel input.
	// Exactly one of By, ToTarget, ToPoint and ToEdge is set.
	Scroll struct {
		By       *Point  // relative, CSS pixels; `by: 600` is {0, 600}
		ToTarget *Target // until the element is in view
		ToPoint  *Point  // absolute scroll offset
		ToEdge   string  // "top" or "bottom"
		// Duration of a smooth scroll; 0: the session's default.
		Duration time.Duration
		In       *Target // nil: the page
	}
	// KeyDown presses a key and keeps it down until KeyUp (or the run's
	// end): its modifier applies to the steps between.
	KeyDown struct{ Key string }
	// KeyUp releases a key KeyDown pressed.
	KeyUp struct{ Key string }
	// Upload sets the files of a file input.
	Upload struct {
		Into  Target
		Files []string // absolute paths, checked to exist at load time
	}

	// Chapter starts a chapter of the video (container metadata).
	Chapter struct{ Title, Description string }
	// Caption shows a caption in the video for Duration.
	Caption struct {
		Text     string
		Duration time.Duration // default 2s
	}
	// Cursor changes how the compositor draws the pointer. Visible nil
	// leaves visibility unchanged; Style "" leaves the style unchanged.
	Cursor struct {
		Visible *bool
		Style   string // arrow, pointer or text
	}
	// Zoom zooms the video toward Target or Region by Scale over Duration.
	// Scale 1 (with neither Target nor Region) returns to the full view.
	Zoom struct {
		Target   *Target
		Region   *Rect
		Scale    float64       // 1..4; default 2 when zooming in
		Duration time.Duration // 0: the compositor's default
	}
	// Hold freezes the named tab for presentation (docs/ARCHITECTURE.md).
	// Max, when set, bounds it: the tab resumes itself then.
	Hold struct {
		Tab string
		Max time.Duration
	}
	// Film chooses the tab the video shows from this step on, whichever
	// tab the steps act on.
	Film struct{ Tab string }
	// Handoff pauses the script for a person working in the tab (headed
	// runs only) until the page shows URL or Visible, or Timeout passes.
	Handoff struct {
		URL     string  // a glob the page's URL matches, or ""
		Visible *Target // an element that becomes visible, or nil
		Timeout time.Duration
		Message string // what the person is asked to do
	}
	// Resume resumes the named tab, consuming the receipt of its hold.
	Resume struct{ Tab string }

	// Tab opens, switches to or closes a named tab, or names a page the
	// current tab opened (TabPopup). Opening or naming a tab makes it the
	// current tab; closing the current tab makes "main" current again.
	// The tab "main" exists from the start and cannot be closed.
	Tab struct {
		Op   string // TabOpen, TabPopup, TabSwitch or TabClose
		Name string
		URL  string // Op TabOpen only; "" for about:blank
	}

	// Expect asserts what the page shows, polling until the step's timeout.
	Expect struct {
		What string // one of the Expect* conditions
		// Target is the element of the conditions on one element, and
		// the elements count counts; for text, the element to search
		// (nil: the whole page).
		Target *Target
		// Want is the expected text (substring, or the whole text with
		// Exact), value (exact), url (glob), title (exact), the
		// attribute's value, or the JavaScript expression of js.
		Want string
		// Exact makes text match the element's whole text.
		Exact bool
		// Attribute is the attribute's name; HasValue says whether Want
		// is its value (else only its presence is asserted).
		Attribute string
		HasValue  bool
		Count     int // for count
	}
	// Screenshot saves a PNG of the viewport, or of Target only.
	Screenshot struct {
		File   string // relative to the output folder
		Target *Target
	}
	// Dialog answers the next dialog a page of the run opens (alert,
	// confirm, prompt, beforeunload), whatever the dialogs: policy says.
	Dialog struct {
		Accept bool
		Text   string // typed into a prompt before it is accepted
		// Secret is true when Text holds a secret's value.
		Secret bool
	}
	// Eval runs JavaScript in the page.
	Eval struct {
		JS string
		// Secret is true when JS holds a secret's value.
		Secret bool
	}
)

func (Back) Kind() string       { return "back" }
func (Forward) Kind() string    { return "forward" }
func (Reload) Kind() string     { return "reload" }
func (Hover) Kind() string      { return "hover" }
func (Move) Kind() string       { return "move" }
func (Drag) Kind() string       { return "drag" }
func (Fill) Kind() string       { return "fill" }
func (Select) Kind() string     { return "select" }
func (Check) Kind() string      { return "check" }
func (Uncheck) Kind() string    { return "uncheck" }
func (Scroll) Kind() string     { return "scroll" }
func (Upload) Kind() string     { return "upload" }
func (KeyDown) Kind() string    { return "keydown" }
func (KeyUp) Kind() string      { return "keyup" }
func (Chapter) Kind() string    { return "chapter" }
func (Caption) Kind() string    { return "caption" }
func (Cursor) Kind() string     { return "cursor" }
func (Zoom) Kind() string       { return "zoom" }
func (Hold) Kind() string       { return "hold" }
func (Resume) Kind() string     { return "resume" }
func (Film) Kind() string       { return "film" }
func (Handoff) Kind() string    { return "handoff" }
func (Tab) Kind() string        { return "tab" }
func (Expect) Kind() string     { return "expect" }
func (Screenshot) Kind() string { return "screenshot" }
func (Eval) Kind() string       { return "eval" }
func (Dialog) Kind() string     { return "dialog" }

// FirstTab is the tab every run starts in. Scripts may also call it
// StageTab, unless they open a tab of their own with that name.
const (
	FirstTab = "main"
	StageTab = "stage"
)

// ServeVar is the variable that holds the sample site's address.
const ServeVar = "${serve.url}"

// Mask replaces every secret's value in str, and each form the value
// takes in a URL, HTML or JSON, with "•••". Everything a run writes or
// prints that could hold a secret passes through it.
func (s *Script) Mask(str string) string { return s.masker.mask(str) }

// Masked is the mask a secret's value is replaced with.
const Masked = "•••"

// MinSecret is the shortest secret value accepted: a shorter one would
// mask ordinary text too.
const MinSecret = 4
