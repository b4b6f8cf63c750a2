package scripts

import (
	"regexp"
	"time"

	"github.com/clapper-dev/clapper/internal/outrules"
	"github.com/clapper-dev/clapper/internal/size"
)

// The tables in this file describe the language once. The decoder reads
// them to accept keys, check types, enums and ranges; Schema reads them to
// emit the JSON Schema. A rule that only one of them can express is kept
// next to the code that checks it, and said so there.

// kind is the type of a field's value.
type kind int

const (
	kString   kind = iota // any scalar, as text, with ${VARS} resolved
	kInt                  // an integer
	kNumber               // an integer or a float
	kBool                 // true or false
	kDuration             // a string like 1.5s, 300ms, 2m
	kTarget               // a CSS string or a target map
	kPlace                // a target or a point {x, y}
	kPoint                // {x, y}
	kRegion               // {x, y, w, h}
	kStrings              // a string or a list of strings
	kEnv                  // a map of variable names to scalars
	kSteps                // a list of steps
	kScrollBy             // a number (vertical) or {x, y}
	kScrollTo             // top, bottom, a target or {x, y}
	kObject               // a map of the sub fields
	kAny                  // any YAML, kept as plain Go values
	kFrames               // a target, or a list of targets (iframes, outermost first)
	kMasks                // a list of targets or regions {x, y, w, h}
)

// field is one key of a map.
type field struct {
	name string
	kind kind
	doc  string

	enum []string // kString: allowed values
	ints []int    // kInt: allowed values

	// kInt, kNumber: inclusive bounds when hasMin/hasMax.
	min, max       float64
	hasMin, hasMax bool

	// kDuration: bounds; dMinOpen makes the lower bound exclusive.
	dMin, dMax time.Duration
	dMinOpen   bool

	// kString, kStrings (each item), kEnv (each name): a regexp the text
	// must match, and what to say when it does not.
	pattern     *regexp.Regexp
	patternHint string

	required   bool
	allowEmpty bool // kString: "" is a valid value
	shortOnly  bool // only as a step's scalar short form, never as a key

	sub   []field // kObject
	extra bool    // kObject: other keys are kept as plain values

	// orBool: true or false is accepted for the map (kObject) or for one
	// of the enum's values (kString), as doc says.
	orBool bool
	// pass: besides being checked here, the value is kept as written
	// (plain Go values) for the part that reads it (the output section's
	// render options, which Load decodes into outrules.Values).
	pass bool
	// refuse, when set, is the error a key that may never be given gets:
	// it is left out of the schema, the reference and the known keys.
	refuse string
}

// Field constructors keep the tables short.
func fStr(name, doc string) field { return field{name: name, kind: kString, doc: doc} }
func fBool(name, doc string) field {
	return field{name: name, kind: kBool, doc: doc}
}
func fOf(name string, k kind, doc string) field { return field{name: name, kind: k, doc: doc} }
func fInt(name string, lo, hi float64, doc string) field {
	return field{name: name, kind: kInt, doc: doc, min: lo, max: hi, hasMin: true, hasMax: true}
}
func fNum(name string, lo, hi float64, doc string) field {
	return field{name: name, kind: kNumber, doc: doc, min: lo, max: hi, hasMin: true, hasMax: true}
}
func fDur(name string, lo, hi time.Duration, loOpen bool, doc string) field {
	return field{name: name, kind: kDuration, doc: doc, dMin: lo, dMax: hi, dMinOpen: loOpen}
}
func fObj(name, doc string, sub ...field) field {
	return field{name: name, kind: kObject, doc: doc, sub: sub}
}

func (f field) req() field                 { f.required = true; return f }
func (f field) oneOf(vals ...string) field { f.enum = vals; return f }
func (f field) empty() field               { f.allowEmpty = true; return f }
func (f field) short() field               { f.shortOnly = true; return f }
func (f field) noMax() field               { f.hasMax = false; return f }
func (f field) match(re *regexp.Regexp, hint string) field {
	f.pattern, f.patternHint = re, hint
	return f
}

// Patterns shared by the parser and the schema.
var (
	varNameRE  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	tabNameRE  = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)
	durationRE = regexp.MustCompile(`^(([0-9]*\.)?[0-9]+(ns|us|µs|ms|s|m|h))+$`)
	sizeRE     = regexp.MustCompile(size.Pattern)
	videoRE    = regexp.MustCompile(outrules.VideoPattern)
	pngRE      = regexp.MustCompile(`^[^/\\]+\.png$`)
)

const (
	varHint  = "a variable name: letters, digits and _, not starting with a digit"
	tabHint  = "a tab name: a letter, then letters, digits, _ or -"
	sizeHint = "WIDTHxHEIGHT, like 1920x1080"
)

// group is a rule over several fields of one map.
type group struct {
	mode   groupMode
	fields []string
}

type groupMode int

const (
	exactlyOne groupMode = iota
	atLeastOne
	atMostOne
)

// stepSpec describes one step kind.
type stepSpec struct {
	name  string
	doc   string
	noArg bool // takes no value: `- back`, `back:`, `back: {}`
	// traits are what the rest of clapper needs to know of the kind.
	traits Traits
	short  string // the field a scalar value fills (`click: "#go"`)
	// inline, when set, lets a target's keys (css, text, role...) sit in
	// the step's map directly; they fill that field.
	inline string
	// orPoint lets x and y stand for the inline target: a point of the
	// viewport instead of an element.
	orPoint bool
	fields  []field
	groups  []group
	// build makes the Action once fields are decoded; nil for the control
	// steps (run, repeat), which the decoder expands inline.
	build func(c *bctx) Action
}

// selectorKeys are the ways a target map selects, exactly one per target.
var selectorKeys = []string{"css", "xpath", "text", "role", "label", "placeholder", "alt", "title", "testid"}

var targetFields = []field{
	fStr("css", "CSS selector"),
	fStr("xpath", "XPath expression"),
	fStr("text", "visible text of the element"),
	fStr("role", "ARIA role, with optional name"),
	fStr("name", "accessible name, with role"),
	fStr("label", "text of the form field's label"),
	fStr("placeholder", "placeholder of the form field"),
	fStr("alt", "alt text of the image"),
	fStr("title", "title attribute of the element"),
	fStr("testid", "data-testid attribute"),
	fInt("nth", 0, 0, "pick one of several matches, 0-based").noMax(),
	fBool("exact", "text, name, label, placeholder, alt and title match the whole text, case-sensitively (default: a case-insensitive substring, white space folded, as Playwright)"),
	fBool("visible", "keep only the matches that are visible"),
	fOf("frame", kFrames, "the iframe the element is in: a target, or a list of targets from the outermost frame in"),
}

var pointFields = []field{
	fOf("x", kNumber, "CSS pixels").req(),
	fOf("y", kNumber, "CSS pixels").req(),
}

var regionFields = []field{
	fOf("x", kNumber, "left, CSS pixels").req(),
	fOf("y", kNumber, "top, CSS pixels").req(),
	fOf("w", kNumber, "width, CSS pixels").req(),
	fOf("h", kNumber, "height, CSS pixels").req(),
}

// commonFields are accepted by every step.
var commonFields = []field{
	fStr("label", "shown in the timeline and captions"),
	fDur("timeout", time.Millisecond, time.Hour, false, "deadline of the step, longer than what the step takes by itself: a pause, its keys, its scroll (default: defaults.timeout, counted from the end of that)"),
	fBool("optional", "a failure is recorded but does not stop the run"),
	fBool("hidden", "runs, but is cut from the video"),
	fStr("tab", "the tab the step runs in (default: the current tab)").match(tabNameRE, tabHint),
	fInt("retries", 0, 10, "retries of a failure that sent nothing to the page"),
}

var scriptFields = []field{
	fStr("name", "title of the script (default: the file name)"),
	fObj("browser", "the browser to drive",
		fObj("viewport", "size of the page in CSS pixels",
			fInt("width", 100, 7680, "default 1280"),
			fInt("height", 100, 4320, "default 720"),
			fNum("scale", 0.5, 4, "device scale factor, default 1"),
		),
		fBool("headless", "default true"),
		fStr("chromium", "path of the Chromium executable"),
		fOf("args", kStrings, "extra Chromium command-line arguments"),
		fStr("attach", "ws:// endpoint of a running Chromium on this machine (loopback only), or shared for the host of clapper browser start"),
		fStr("claim", "take over a tab already open in the attached browser: active, index:N, url:<substring>, title:<substring> or a tab id"),
		fBool("close", "in a shared browser, whether the tabs the run gives back are closed: by default those it opened are and a claimed one is not; false leaves them open for a person to look at, true closes a claimed one too"),
		fBool("sandbox", "false runs Chromium without its sandbox (an explicit choice)"),
		fStr("capture", "live: the page runs in real time, filmed by the screencast; studio: every frame, on a clock clapper drives (chromium-headless-shell)").oneOf(CaptureLive, CaptureStudio),
	),
	fStr("serve", "a folder served on loopback as ${serve.url} (http://TOKEN.localhost:PORT), relative to the script"),
	fOf("env", kEnv, "variable defaults, overridden by the environment and -e").
		match(varNameRE, varHint),
	fOf("secrets", kStrings, "variables whose values never reach the timeline, logs or video").
		match(varNameRE, varHint),
	fStr("dialogs", "how the pages' alert, confirm and prompt dialogs are answered when no dialog step says: dismiss (the default) or accept; a beforeunload dialog is accepted").oneOf(DialogsDismiss, DialogsAccept),
	fOf("mask", kMasks, "what changes by nature (a clock, an avatar): targets or regions {x, y, w, h} a comparison of takes leaves out"),
	fObj("output", "what to render (filming.md says more of each)", append([]field{
		fOf("video", kStrings, "file names: .mp4, .webm, .gif or .png").
			match(videoRE, outrules.VideoHint),
		fInt("fps", outrules.MinFPS, outrules.MaxFPS, "frames per second: 24, 25, 30, 50 or 60 play everywhere"),
		fStr("size", "video size, WIDTHxHEIGHT: "+outrules.SizeHint).match(sizeRE, sizeHint),
		fStr("preset", "a render preset: docs (1920x1080 at 60 fps), social (1080x1080, framed) or readme (a GIF 800 wide); the other keys change it").oneOf(outrules.Presets...),
		{name: "ffmpeg", kind: kAny, refuse: outrules.FFmpegRefused},
	}, optionFields(outrules.Options, true)...)...),
	fObj("defaults", "step defaults",
		fDur("timeout", time.Millisecond, time.Hour, false, "default 10s"),
		fDur("type_delay", 0, 5*time.Second, false, "delay between typed keys, default 60ms"),
		fDur("beat", 0, 5*time.Second, false, "least time between the last input of a step and the first of the next, as a person takes, default 100ms; 0 for raw speed (the page still gets its turn)"),
		fNum("pointer_speed", 50, 20000, "CSS pixels per second, default 1400"),
	),
	fOf("steps", kSteps, "what to do").req(),
}

// optionFields are the fields of render options opts (outrules, the one
// table of them); pass marks the top level's, whose values Load decodes
// into outrules.Values (outrules.Decode).
func optionFields(opts []outrules.Option, pass bool) []field {
	out := make([]field, 0, len(opts))
	for _, o := range opts {
		var f field
		switch o.Kind {
		case outrules.Bool:
			f = fBool(o.Name, o.Doc)
		case outrules.Int:
			f = fInt(o.Name, o.Min, o.Max, o.Doc)
		case outrules.Number:
			f = fNum(o.Name, o.Min, o.Max, o.Doc)
		case outrules.Duration:
			f = fDur(o.Name, o.DMin, 0, false, o.Doc)
		case outrules.String:
			f = fStr(o.Name, o.Doc)
			if o.Pattern != "" {
				f = f.match(regexp.MustCompile(o.Pattern), o.PatternHint)
			}
		case outrules.Enum:
			f = fStr(o.Name, o.Doc).oneOf(o.Values...)
		case outrules.Object:
			f = fObj(o.Name, o.Doc, optionFields(o.Sub, false)...)
		default:
			panic("outrules: option " + o.Name + " of an unknown kind")
		}
		f.orBool, f.pass = o.OrBool, pass
		out = append(out, f)
	}
	return out
}

// steps is the table of step kinds, in the order the docs list them.
var steps []*stepSpec

// stepByName indexes steps.
var stepByName map[string]*stepSpec

func init() {
	steps = stepTable()
	stepByName = make(map[string]*stepSpec, len(steps))
	for _, s := range steps {
		stepByName[s.name] = s
	}
}

func stepNames() []string {
	out := make([]string, len(steps))
	for i, s := range steps {
		out[i] = s.name
	}
	return out
}

func fieldNames(fs []field) []string {
	var out []string
	for _, f := range fs {
		if !f.shortOnly && f.refuse == "" {
			out = append(out, f.name)
		}
	}
	return out
}

func findField(fs []field, name string) *field {
	for i := range fs {
		if fs[i].name == name && !fs[i].shortOnly {
			return &fs[i]
		}
	}
	return nil
}
