package scripts

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/clapper-dev/clapper/internal/outrules"
)

// writeScript writes files (name → content) into a fresh folder and
// returns the folder.
func writeScript(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// loadSrc loads a script given as text, next to the extra files.
func loadSrc(t *testing.T, src string, opts LoadOptions, extra map[string]string) *Script {
	t.Helper()
	files := map[string]string{"demo.yaml": src}
	for k, v := range extra {
		files[k] = v
	}
	dir := writeScript(t, files)
	s, err := Load(filepath.Join(dir, "demo.yaml"), opts)
	if err != nil {
		t.Fatalf("Load:\n%v\nscript:\n%s", err, src)
	}
	return s
}

func css(s string) *Target { return &Target{CSS: s} }
func intp(i int) *int      { return &i }
func boolp(b bool) *bool   { return &b }

// stepCases are one valid step of each kind and form, with what it parses
// to (nil: checked elsewhere). TestSchemaAcceptsStepCases runs them through
// the schema too.
var stepCases = []struct {
	src  string
	want Action
}{
	{`goto: https://example.com/`, Goto{URL: "https://example.com/"}},
	{`goto: {url: "${serve.url}/a"}`, Goto{URL: "${serve.url}/a"}},
	{`back:`, Back{}},
	{`forward: {}`, Forward{}},
	{`reload`, Reload{}},

	{`click: "#start"`, Click{Target: *css("#start"), Button: "left", Count: 1}},
	{`click: {target: {text: Save}, button: right, count: 2, modifiers: [Shift, Control]}`,
		Click{Target: Target{Text: "Save"}, Button: "right", Count: 2, Modifiers: []string{"Shift", "Control"}}},
	{`click: {role: button, name: Save, nth: 1}`,
		Click{Target: Target{Role: "button", Name: "Save", Nth: intp(1)}, Button: "left", Count: 1}},
	{`click: {testid: go, modifiers: Meta}`,
		Click{Target: Target{TestID: "go"}, Button: "left", Count: 1, Modifiers: []string{"Meta"}}},
	{`hover: "#menu"`, Hover{Target: *css("#menu")}},
	{`hover: {placeholder: Search}`, Hover{Target: Target{Placeholder: "Search"}}},
	{`move: "#box"`, Move{To: Place{Target: css("#box")}}},
	{`move: {to: {x: 10, y: 20.5}}`, Move{To: Place{Point: &Point{X: 10, Y: 20.5}}}},
	{`drag: {from: "#card", to: {x: 300, y: 40}}`,
		Drag{From: Place{Target: css("#card")}, To: Place{Point: &Point{X: 300, Y: 40}}}},
	{`drag: {from: {label: Volume}, to: {xpath: "//div[2]"}}`,
		Drag{From: Place{Target: &Target{Label: "Volume"}}, To: Place{Target: &Target{XPath: "//div[2]"}}}},
	{`type: {into: "#email", text: "${EMAIL}", delay: 20ms}`,
		Type{Into: css("#email"), Text: "demo@example.com", Delay: 20 * time.Millisecond}},
	{`type: {text: hello}`, Type{Text: "hello"}},
	{`type: hello`, Type{Text: "hello"}},
	{`type: "${EMAIL}"`, Type{Text: "demo@example.com"}},
	{`fill: {into: "#zip", value: 01234}`, Fill{Into: *css("#zip"), Value: "01234"}},
	{`fill: {into: "#q", value: ""}`, Fill{Into: *css("#q")}},
	{`press: Enter`, Press{Key: "Enter", Chord: Chord{Key: "Enter"}}},
	{`press: {key: Control+A, into: "#doc"}`, Press{Key: "Control+A", Chord: Chord{Modifiers: []string{"Control"}, Key: "A"}, Into: css("#doc")}},
	{`press: Shift+Tab`, Press{Key: "Shift+Tab", Chord: Chord{Modifiers: []string{"Shift"}, Key: "Tab"}}},
	{`press: Control++`, Press{Key: "Control++", Chord: Chord{Modifiers: []string{"Control"}, Key: "+"}}},
	{`press: "7"`, Press{Key: "7", Chord: Chord{Key: "7"}}},
	{`press: F12`, Press{Key: "F12", Chord: Chord{Key: "F12"}}},
	{`select: {into: "#country", label: France}`, Select{Into: *css("#country"), Labels: []string{"France"}}},
	{`select: {target: {label: Size}, value: xl}`, Select{Into: Target{Label: "Size"}, Values: []string{"xl"}}},
	{`select: {into: "#tags", label: [Red, Blue]}`, Select{Into: *css("#tags"), Labels: []string{"Red", "Blue"}}},
	{`select: {into: "#tags", index: 2}`, Select{Into: *css("#tags"), Index: intp(2)}},
	{`click: {x: 10, y: 20.5}`, Click{Point: &Point{X: 10, Y: 20.5}, Button: "left", Count: 1}},
	{`click: {target: "#p", at: {x: 5, y: 6}, count: 3, modifiers: [Shift]}`, Click{Target: *css("#p"), At: &Point{X: 5, Y: 6}, Button: "left", Count: 3, Modifiers: []string{"Shift"}}},
	{`click: {text: Save, exact: true}`, Click{Target: Target{Text: "Save", Exact: true}, Button: "left", Count: 1}},
	{`click: {css: "#pay", frame: "iframe#checkout"}`, Click{Target: Target{CSS: "#pay", Frames: []Target{{CSS: "iframe#checkout"}}}, Button: "left", Count: 1}},
	{`click: {css: "#pay", frame: ["#outer", {css: "#inner"}]}`, Click{Target: Target{CSS: "#pay", Frames: []Target{{CSS: "#outer"}, {CSS: "#inner"}}}, Button: "left", Count: 1}},
	{`click: {css: li, visible: true, nth: 1}`, Click{Target: Target{CSS: "li", Visible: true, Nth: intp(1)}, Button: "left", Count: 1}},
	{`keydown: Shift`, KeyDown{Key: "Shift"}},
	{`keyup: {key: ShiftLeft}`, KeyUp{Key: "ShiftLeft"}},
	{`press: Shift+a`, Press{Key: "Shift+a", Chord: Chord{Modifiers: []string{"Shift"}, Key: "a"}}},
	{`expect: {checked: "#terms"}`, Expect{What: "checked", Target: css("#terms")}},
	{`expect: {attribute: {name: href, value: /docs}, target: a}`, Expect{What: "attribute", Target: css("a"), Attribute: "href", Want: "/docs", HasValue: true}},
	{`expect: {attribute: {name: disabled}, target: button}`, Expect{What: "attribute", Target: css("button"), Attribute: "disabled"}},
	{`expect: {js: "window.done === true"}`, Expect{What: "js", Want: "window.done === true"}},
	{`expect: {text: Walk the dog, in: li, exact: true}`, Expect{What: "text", Want: "Walk the dog", Target: css("li"), Exact: true}},
	{`check: "#terms"`, Check{Target: *css("#terms")}},
	{`uncheck: {label: Newsletter}`, Uncheck{Target: Target{Label: "Newsletter"}}},
	{`scroll: {by: 600}`, Scroll{By: &Point{Y: 600}}},
	{`scroll: {by: {x: -50, y: 10}, duration: 800ms, in: "#list"}`,
		Scroll{By: &Point{X: -50, Y: 10}, Duration: 800 * time.Millisecond, In: css("#list")}},
	{`scroll: {to: bottom}`, Scroll{ToEdge: "bottom"}},
	{`scroll: {to: "#footer"}`, Scroll{ToTarget: css("#footer")}},
	{`scroll: {to: {x: 0, y: 1200}}`, Scroll{ToPoint: &Point{Y: 1200}}},
	{`upload: {into: "input[type=file]", files: [files/a.png, files/b.txt]}`, nil}, // checked below

	{`wait: "#ready"`, Wait{Target: css("#ready"), State: "visible"}},
	{`wait: {selector: {text: Loading}, state: detached}`, Wait{Target: &Target{Text: "Loading"}, State: "detached"}},
	{`wait: {text: Welcome}`, Wait{Text: "Welcome"}},
	{`wait: {url: "*/done"}`, Wait{URL: "*/done"}},
	{`wait: {js: "window.ready === true"}`, Wait{JS: "window.ready === true"}},
	{`wait: {network_idle: true}`, Wait{NetworkIdle: true}},

	{`pause: 1.5s`, Pause{Duration: 1500 * time.Millisecond}},
	{`pause: {duration: 2m}`, Pause{Duration: 2 * time.Minute}},
	{`chapter: Checkout`, Chapter{Title: "Checkout"}},
	{`chapter: {title: Pay, description: "Card ${EMAIL}"}`, Chapter{Title: "Pay", Description: "Card demo@example.com"}},
	{`caption: Hello`, Caption{Text: "Hello", Duration: 2 * time.Second}},
	{`caption: {text: Hi, duration: 500ms}`, Caption{Text: "Hi", Duration: 500 * time.Millisecond}},
	{`cursor: hide`, Cursor{Visible: boolp(false)}},
	{`cursor: show`, Cursor{Visible: boolp(true)}},
	{`cursor: {style: pointer}`, Cursor{Style: "pointer"}},
	{`cursor: {visible: false, style: text}`, Cursor{Visible: boolp(false), Style: "text"}},
	{`zoom: {target: "#chart"}`, Zoom{Target: css("#chart"), Scale: 2}},
	{`zoom: {region: {x: 0, y: 0, w: 640, h: 360}, scale: 1.5, duration: 600ms}`,
		Zoom{Region: &Rect{W: 640, H: 360}, Scale: 1.5, Duration: 600 * time.Millisecond}},
	{`zoom: reset`, Zoom{Scale: 1}},
	{`zoom: {scale: 1}`, Zoom{Scale: 1}},
	{`hold: main`, Hold{Tab: "main"}},
	{"hold: main\n  - resume: {name: main}", Resume{Tab: "main"}},
	{`hold: {tab: stage, max: 30s}`, Hold{Tab: "main", Max: 30 * time.Second}},
	{`hold: {name: main}`, Hold{Tab: "main"}},
	{`film: stage`, Film{Tab: "main"}},
	{`handoff: {until: {url: "*/done"}, message: Log in}`, Handoff{URL: "*/done", Timeout: 10 * time.Minute, Message: "Log in"}},
	{`handoff: {until: {visible: "#ok"}, timeout: 2m}`, Handoff{Visible: css("#ok"), Timeout: 2 * time.Minute}},

	{`tab: {open: docs, url: https://example.com/docs}`, Tab{Op: TabOpen, Name: "docs", URL: "https://example.com/docs"}},
	{`tab: main`, Tab{Op: TabSwitch, Name: "main"}},
	{`tab: {switch: main}`, Tab{Op: TabSwitch, Name: "main"}},

	{`expect: {visible: "#done"}`, Expect{What: ExpectVisible, Target: css("#done")}},
	{`expect: {hidden: {text: Loading}}`, Expect{What: ExpectHidden, Target: &Target{Text: "Loading"}}},
	{`expect: {text: Thanks}`, Expect{What: ExpectText, Want: "Thanks"}},
	{`expect: {text: Saved, in: "#status"}`, Expect{What: ExpectText, Want: "Saved", Target: css("#status")}},
	{`expect: {value: "${EMAIL}", target: "#email"}`, Expect{What: ExpectValue, Want: "demo@example.com", Target: css("#email")}},
	{`expect: {url: "*/thanks"}`, Expect{What: ExpectURL, Want: "*/thanks"}},
	{`expect: {title: Shop}`, Expect{What: ExpectTitle, Want: "Shop"}},
	{`expect: {count: 3, target: "li.item"}`, Expect{What: ExpectCount, Count: 3, Target: css("li.item")}},
	{`expect: {count: 0, target: ".error"}`, Expect{What: ExpectCount, Target: css(".error")}},
	{`screenshot: done.png`, Screenshot{File: "done.png"}},
	{`screenshot: {file: chart.png, target: "#chart"}`, Screenshot{File: "chart.png", Target: css("#chart")}},
	{"eval: |\n      document.title = `${EMAIL} $${x}`", Eval{JS: "document.title = `demo@example.com ${x}`\n"}},
	{`eval: {js: "1+1"}`, Eval{JS: "1+1"}},
	{"dialog: {}", Dialog{Accept: true}},
	{`dialog: {accept: true, text: "${EMAIL}"}`, Dialog{Accept: true, Text: "demo@example.com"}},
	{"dialog: {accept: false}", Dialog{Accept: false}},
}

// TestStepKinds parses each step kind in its short and long forms and
// checks the typed result.
func TestStepKinds(t *testing.T) {
	seen := map[string]bool{}
	for _, tt := range stepCases {
		t.Run(tt.src, func(t *testing.T) {
			src := "env: {EMAIL: demo@example.com}\nserve: site\nsteps:\n  - " + tt.src + "\n"
			// Headed: a handoff needs a window.
			s := loadSrc(t, src, LoadOptions{Headed: true}, map[string]string{
				"site/index.html": "<p>hi</p>", "files/a.png": "png", "files/b.txt": "txt"})
			n := strings.Count(tt.src, "\n  - ") + 1
			if len(s.Steps) != n {
				t.Fatalf("got %d steps, want %d", len(s.Steps), n)
			}
			st := s.Steps[n-1]
			seen[st.Kind] = true
			if st.Action == nil || st.Action.Kind() != st.Kind {
				t.Fatalf("step kind %q, action %#v", st.Kind, st.Action)
			}
			if st.Pos.Line != 3+n || st.Pos.Col != 5 {
				t.Errorf("pos = %v, want line %d col 5", st.Pos, 3+n)
			}
			if tt.want == nil {
				return
			}
			if !reflect.DeepEqual(st.Action, tt.want) {
				t.Errorf("got  %#v\nwant %#v", st.Action, tt.want)
			}
		})
	}
	for _, name := range stepNames() {
		if name != "run" && name != "repeat" && !seen[name] {
			t.Errorf("step %q is not covered by TestStepKinds", name)
		}
	}
}

func TestUploadResolvesFiles(t *testing.T) {
	s := loadSrc(t, "steps:\n  - upload: {into: \"#f\", files: [files/a.png, files/b.txt]}\n",
		LoadOptions{}, map[string]string{"files/a.png": "x", "files/b.txt": "y"})
	dir := filepath.Dir(s.File)
	want := Upload{Into: *css("#f"), Files: []string{filepath.Join(dir, "files/a.png"), filepath.Join(dir, "files/b.txt")}}
	if !reflect.DeepEqual(s.Steps[0].Action, want) {
		t.Errorf("got %#v, want %#v", s.Steps[0].Action, want)
	}
}

func TestCommonFields(t *testing.T) {
	src := `steps:
  - tab: {open: stage, url: "https://example.com/"}
  - click: "#a"
    label: Start here
    timeout: 3s
    optional: true
    hidden: true
    tab: stage
    retries: 2
`
	s := loadSrc(t, src, LoadOptions{}, nil)
	got := s.Steps[1]
	if got.Label != "Start here" || got.Timeout != 3*time.Second || !got.Optional || !got.Hidden ||
		got.Tab != "stage" || got.Retries != 2 || got.Kind != "click" {
		t.Errorf("common fields: %+v", got)
	}
	if got.Pos.Line != 3 || got.Pos.Col != 5 || !strings.HasSuffix(got.Pos.File, "demo.yaml") {
		t.Errorf("pos = %v", got.Pos)
	}
}

func TestTabs(t *testing.T) {
	src := `steps:
  - tab: {open: stage, url: "https://example.com/"}
  - tab: {open: scout}
  - hold: stage
  - click: "#x"
    tab: scout
  - resume: {name: stage}
  - tab: {close: scout}
  - tab: {open: scout}
  - press: Enter
    tab: scout
`
	s := loadSrc(t, src, LoadOptions{}, nil)
	if got := s.Steps[4].Action; !reflect.DeepEqual(got, Resume{Tab: "stage"}) {
		t.Errorf("resume = %#v", got)
	}
	if got := s.Steps[5].Action; !reflect.DeepEqual(got, Tab{Op: TabClose, Name: "scout"}) {
		t.Errorf("close = %#v", got)
	}
}

func TestHeaderDefaults(t *testing.T) {
	s := loadSrc(t, "steps:\n  - goto: https://example.com/\n", LoadOptions{}, nil)
	if s.Name != "demo" {
		t.Errorf("Name = %q", s.Name)
	}
	if want := (Browser{Width: 1280, Height: 720, Scale: 1, Headless: true}); !reflect.DeepEqual(s.Browser, want) {
		t.Errorf("Browser = %+v", s.Browser)
	}
	if want := (Output{Video: []string{"demo.mp4"}}); !reflect.DeepEqual(s.Output, want) {
		t.Errorf("Output = %+v", s.Output)
	}
	if want := (Defaults{Timeout: 10 * time.Second, TypeDelay: 60 * time.Millisecond, PointerSpeed: 1400, Beat: DefaultBeat}); s.Defaults != want {
		t.Errorf("Defaults = %+v", s.Defaults)
	}
	if !filepath.IsAbs(s.File) || s.Serve != "" {
		t.Errorf("File %q Serve %q", s.File, s.Serve)
	}
}

func TestHeader(t *testing.T) {
	src := `name: Checkout demo
browser:
  viewport: {width: 1920, height: 1080, scale: 2}
  headless: false
  chromium: /opt/chromium/chrome
  args: [--lang=fr, --mute-audio]
  sandbox: false
serve: ./site
output:
  video: checkout.webm
  fps: 60
  size: 1280x720
  preset: social
  cursor: {size: 2, smoothing: "${SMOOTHING}"}
  frame: true
  keys: true
defaults: {timeout: 5s, type_delay: 0s, pointer_speed: 900, beat: 0s}
env: {SMOOTHING: spring}
steps:
  - goto: ${serve.url}/
`
	s := loadSrc(t, src, LoadOptions{}, map[string]string{"site/index.html": "x"})
	wantB := Browser{Width: 1920, Height: 1080, Scale: 2, Headless: false, Chromium: "/opt/chromium/chrome",
		Args: []string{"--lang=fr", "--mute-audio"}, NoSandbox: true}
	if !reflect.DeepEqual(s.Browser, wantB) {
		t.Errorf("Browser = %+v", s.Browser)
	}
	wantO := Output{Video: []string{"checkout.webm"}, FPS: 60, Width: 1280, Height: 720, Preset: "social",
		Options: outrules.Values{
			Cursor: &outrules.OrBool[outrules.CursorValues]{Map: &outrules.CursorValues{Size: new(2.0), Smoothing: new("spring")}},
			Frame:  &outrules.OrBool[outrules.FrameValues]{Bool: new(true)},
			Keys:   new(true),
		}}
	for k, line := range map[string]int{"cursor": 14, "frame": 15, "keys": 16} {
		if p := s.Output.OptionPos[k]; p.Line != line || p.Col != 3 || p.File != s.File {
			t.Errorf("OptionPos[%s] = %v, want line %d col 3", k, p, line)
		}
	}
	wantO.OptionPos = s.Output.OptionPos
	if !reflect.DeepEqual(s.Output, wantO) {
		t.Errorf("Output = %#v", s.Output)
	}
	if s.Defaults != (Defaults{Timeout: 5 * time.Second, PointerSpeed: 900}) { // beat: 0s is kept
		t.Errorf("Defaults = %+v", s.Defaults)
	}
	if s.Serve != filepath.Join(filepath.Dir(s.File), "site") || s.Name != "Checkout demo" {
		t.Errorf("Serve %q Name %q", s.Serve, s.Name)
	}
}

func TestAttach(t *testing.T) {
	for _, ok := range []string{
		"ws://127.0.0.1:9222/devtools/browser/abc", "ws://localhost:9222/devtools/browser/x",
		"ws://[::1]:9222/devtools/browser/x", "ws://127.0.0.2:1234",
	} {
		if msg := checkAttach(ok); msg != "" {
			t.Errorf("%s refused: %s", ok, msg)
		}
	}
	for _, bad := range []string{
		"ws://192.168.1.2:9222/devtools/browser/x", "wss://127.0.0.1:9222/x", "http://127.0.0.1:9222",
		"ws://user:pw@127.0.0.1:9222/x", "ws://127.0.0.1:9222/x?token=1", "ws://127.0.0.1/x",
		"ws://localhost.evil.com:9222/x", "ws://0.0.0.0:9222/x", "127.0.0.1:9222",
	} {
		if msg := checkAttach(bad); msg == "" {
			t.Errorf("%s accepted", bad)
		}
	}
	s := loadSrc(t, "browser: {attach: \"ws://127.0.0.1:9222/devtools/browser/abc\"}\nsteps: [reload]\n", LoadOptions{}, nil)
	if s.Browser.Attach != "ws://127.0.0.1:9222/devtools/browser/abc" {
		t.Errorf("Attach = %q", s.Browser.Attach)
	}
}

func TestKeys(t *testing.T) {
	for _, tt := range []struct {
		in   string
		mods []string
		key  string
	}{
		{"Enter", nil, "Enter"}, {"a", nil, "a"}, {"Z", nil, "Z"}, {"5", nil, "5"}, {"/", nil, "/"}, {"+", nil, "+"},
		{"Control++", []string{"Control"}, "+"}, {"Shift+Tab", []string{"Shift"}, "Tab"},
		{"Control+Shift+Z", []string{"Control", "Shift"}, "Z"}, {"Meta+ArrowLeft", []string{"Meta"}, "ArrowLeft"},
		{"Alt+F4", []string{"Alt"}, "F4"}, {"Shift", nil, "Shift"}, {"Control+Shift", []string{"Control"}, "Shift"},
		{"Insert", nil, "Insert"}, {"PageDown", nil, "PageDown"}, {"Space", nil, "Space"}, {"F1", nil, "F1"}, {"F12", nil, "F12"},
		{"Alt++", []string{"Alt"}, "+"}, {"KeyA", nil, "KeyA"}, {"Digit3", nil, "Digit3"}, {"NumpadEnter", nil, "NumpadEnter"},
		{"AudioVolumeMute", nil, "AudioVolumeMute"}, {"MediaPlayPause", nil, "MediaPlayPause"}, {"ShiftLeft", nil, "ShiftLeft"},
		{"ControlOrMeta+A", []string{"ControlOrMeta"}, "A"}, {"Shift+a", []string{"Shift"}, "a"}, {"F13", nil, "F13"},
		{"A+B", []string{"A"}, "B"}, {" ", nil, " "}, {"#", nil, "#"},
	} {
		c, msg := parseChord(tt.in)
		if msg != "" {
			t.Errorf("%q refused: %s", tt.in, msg)
			continue
		}
		if c.Key != tt.key || strings.Join(c.Modifiers, ",") != strings.Join(tt.mods, ",") {
			t.Errorf("%q parsed as %+v, want modifiers %v and key %q", tt.in, c, tt.mods, tt.key)
		}
	}
	for _, bad := range []string{"", "enter", "Ctrl+A", "Control+", "F25", "ab", "Shift+Shift+A", "é", "+A", "Control+++", "Hyper", "Control+é", "keya"} {
		if c, msg := parseChord(bad); msg == "" {
			t.Errorf("%q accepted as %+v", bad, c)
		}
	}
}

func TestSuggest(t *testing.T) {
	for _, tt := range []struct{ word, want string }{
		{"clikc", "click"}, {"scrol", "scroll"}, {"Click", "click"}, {"relaod", "reload"},
		{"screenshto", "screenshot"}, {"xyzzy", ""}, {"go", ""}, {"scrll", "scroll"}, {"nope", ""},
	} {
		if got := suggest(tt.word, stepNames()); got != tt.want {
			t.Errorf("suggest(%q) = %q, want %q", tt.word, got, tt.want)
		}
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// "stage" names the first tab unless the script opens a tab called so:
// resuming it when it is not held says that, not that it was never opened.
func TestStageIsTheFirstTab(t *testing.T) {
	s := loadSrc(t, "steps:\n  - hold: stage\n  - resume: main\n  - click: '#a'\n    tab: stage\n", LoadOptions{}, nil)
	if got := s.Steps[0].Action; !reflect.DeepEqual(got, Hold{Tab: FirstTab}) {
		t.Errorf("hold: stage = %#v", got)
	}
	if s.Steps[2].Tab != FirstTab {
		t.Errorf("tab: stage resolved to %q", s.Steps[2].Tab)
	}
	dir := writeScript(t, map[string]string{"demo.yaml": "steps:\n  - goto: about:blank\n  - resume: stage\n"})
	_, err := Load(filepath.Join(dir, "demo.yaml"), LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), "is not held") || strings.Contains(err.Error(), "never opened") {
		t.Errorf("resume: stage of the first tab, not held: %v", err)
	}
}

// The traits table: every kind the session, the compositor and JUnit ask
// about, with what they must be told.
func TestTraits(t *testing.T) {
	want := map[string]Traits{
		"goto": {ChangesPage: true, Waits: true}, "back": {ChangesPage: true, Waits: true},
		"forward": {ChangesPage: true, Waits: true}, "reload": {ChangesPage: true, Waits: true},
		"click": {ChangesPage: true, Focus: true}, "type": {ChangesPage: true, Focus: true}, "fill": {ChangesPage: true, Focus: true},
		"hover": {}, "move": {}, "screenshot": {},
		"drag": {ChangesPage: true}, "press": {ChangesPage: true}, "select": {ChangesPage: true}, "check": {ChangesPage: true},
		"uncheck": {ChangesPage: true}, "keydown": {ChangesPage: true}, "keyup": {ChangesPage: true}, "scroll": {ChangesPage: true}, "upload": {ChangesPage: true}, "eval": {ChangesPage: true}, "dialog": {},
		"wait": {Waits: true}, "expect": {Waits: true, Expectation: true},
		"pause": {Presentation: true}, "chapter": {Presentation: true}, "caption": {Presentation: true}, "cursor": {Presentation: true},
		"zoom": {Presentation: true}, "hold": {Presentation: true}, "resume": {Presentation: true},
		"tab": {ChangesPage: true, Presentation: true}, "run": {}, "repeat": {},
		"film": {Presentation: true}, "handoff": {ChangesPage: true, Waits: true, Cut: true},
	}
	for _, name := range stepNames() {
		w, ok := want[name]
		if !ok {
			t.Errorf("step %q has no row in this test", name)
			continue
		}
		if got := traitsOf(name); got != w {
			t.Errorf("traitsOf(%q) = %+v, want %+v", name, got, w)
		}
	}
	s := loadSrc(t, "steps:\n  - expect: {title: x}\n  - back\n", LoadOptions{}, nil)
	if !s.Steps[0].Traits.Expectation || !s.Steps[1].Traits.Waits {
		t.Errorf("decoded steps carry traits %+v, %+v", s.Steps[0].Traits, s.Steps[1].Traits)
	}
}

// A script that opens a tab of its own called stage keeps it: stage is
// then never the first tab, before or after.
func TestOwnStageTab(t *testing.T) {
	s := loadSrc(t, "steps:\n  - click: '#a'\n    tab: main\n  - tab: {open: stage}\n  - hold: stage\n  - resume: stage\n", LoadOptions{}, nil)
	if got := s.Steps[2].Action; !reflect.DeepEqual(got, Hold{Tab: StageTab}) {
		t.Errorf("hold: stage with an own stage tab = %#v", got)
	}
	dir := writeScript(t, map[string]string{"demo.yaml": "steps:\n  - tab: {open: stage}\n  - tab: {close: stage}\n  - click: '#a'\n    tab: stage\n"})
	if _, err := Load(filepath.Join(dir, "demo.yaml"), LoadOptions{}); err == nil || !strings.Contains(err.Error(), `tab "stage" is not open here: it was closed at`) {
		t.Errorf("stage after its own tab closed: %v", err)
	}
}

// A handoff needs a window: a headless run refuses it before anything
// launches, saying how to run headed; --headed (LoadOptions.Headed) or
// browser: {headless: false} allow it.
func TestHandoffNeedsHeaded(t *testing.T) {
	src := "steps:\n  - handoff: {until: {url: \"*/home\"}}\n"
	dir := writeScript(t, map[string]string{"demo.yaml": src})
	_, err := Load(filepath.Join(dir, "demo.yaml"), LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), "demo.yaml:2:5: handoff needs a window") || !strings.Contains(err.Error(), "--headed") {
		t.Errorf("headless handoff: %v", err)
	}
	if s := loadSrc(t, src, LoadOptions{Headed: true}, nil); s.Browser.Headless {
		t.Error("--headed left the browser headless")
	}
	loadSrc(t, "browser: {headless: false}\n"+src, LoadOptions{}, nil)
	dir = writeScript(t, map[string]string{"demo.yaml": "browser: {headless: false}\nsteps:\n  - handoff: {until: {}}\n"})
	if _, err := Load(filepath.Join(dir, "demo.yaml"), LoadOptions{}); err == nil || !strings.Contains(err.Error(), "until needs one of url or visible") {
		t.Errorf("handoff without a condition: %v", err)
	}
}

// mask: takes targets and regions, each decoded once, with errors at
// their places.
func TestMasks(t *testing.T) {
	s := loadSrc(t, "mask: [\"#clock\", {text: Online}, {x: 0, y: 0, w: 200, h: 40}]\nsteps: [reload]\n", LoadOptions{}, nil)
	if len(s.Masks) != 3 || s.Masks[0].Target.CSS != "#clock" || s.Masks[1].Target.Text != "Online" || *s.Masks[2].Region != (Rect{0, 0, 200, 40}) {
		t.Errorf("masks: %+v", s.Masks)
	}
	dir := writeScript(t, map[string]string{"demo.yaml": "mask: [{x: 0, y: 0, w: 0, h: 4}, {nth: 1}]\nsteps: [reload]\n"})
	_, err := Load(filepath.Join(dir, "demo.yaml"), LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), "mask[0] must have a positive width and height") || !strings.Contains(err.Error(), "mask[1] needs one of css") {
		t.Errorf("bad masks: %v", err)
	}
}

// dialogs: is dismiss unless the script says accept; a dialog step's text
// needs accept, and its secret is marked.
func TestDialogs(t *testing.T) {
	s := loadSrc(t, "steps: [reload]\n", LoadOptions{}, nil)
	if s.Dialogs != DialogsDismiss {
		t.Errorf("default dialogs: %q", s.Dialogs)
	}
	s = loadSrc(t, "dialogs: accept\nsecrets: [PIN]\nsteps:\n  - dialog: {text: \"${PIN}\"}\n", LoadOptions{Env: map[string]string{"PIN": "48151623"}}, nil)
	if a := s.Steps[0].Action.(Dialog); s.Dialogs != DialogsAccept || !a.Accept || !a.Secret || a.Text != "48151623" {
		t.Errorf("dialogs %q, step %+v", s.Dialogs, a)
	}
	dir := writeScript(t, map[string]string{"demo.yaml": "dialogs: maybe\nsteps:\n  - dialog: {accept: false, text: hi}\n"})
	_, err := Load(filepath.Join(dir, "demo.yaml"), LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), "demo.yaml:1:10") || !strings.Contains(err.Error(), "dialog: text is typed into a prompt that is accepted") {
		t.Errorf("bad dialogs: %v", err)
	}
}
