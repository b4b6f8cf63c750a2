package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/clapper-dev/clapper/internal/testenv"
	"github.com/clapper-dev/clapper/recorder"
	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
)

// A behaviour is one thing a Playwright user expects of input and
// targeting, drawn from what Playwright's own page tests assert, written
// for clapper as a page of testdata/site/pw and the steps a script would
// take there. A behaviour holds when each of its steps passes, or, where
// fails is set, when one fails with an error saying so. A step meant to
// fail at its timeout has 3s: on a loaded machine a first look can take
// over a second, and a timeout before any look answered says only that
// the page did not answer, not why the step could not act.
type behaviour struct {
	name  string
	page  string
	steps string
	fails string
	// studio runs it in studio capture too, where virtual time decides
	// what the page had time to do.
	studio bool
}

var behaviours = []behaviour{
	// Clicks: where they aim, how they scroll, what may receive them.
	{name: "click a box of one pixel at fractional offsets", page: "click.html", steps: `
  - click: "#tiny1"
  - click: "#tiny2"
  - expect: {text: "tiny1", in: {css: "#log li", nth: 0}, exact: true}
  - expect: {text: "tiny2", in: {css: "#log li", nth: 1}, exact: true}`},
	{name: "click an element drawn only by ::before", page: "click.html", steps: `
  - click: "#pseudo"
  - expect: {text: pseudo, in: "#log"}`},
	{name: "click a link wrapped over two lines (its first line, not the middle of its box)", page: "click.html", steps: `
  - click: "#link"
  - expect: {text: link, in: "#log"}`},
	{name: "click a button in a rotated container", page: "click.html", steps: `
  - click: {role: button, name: Rotated}
  - expect: {text: rotated, in: "#log"}`},
	{name: "click a button whose centre is on the viewport's right edge", page: "click.html", steps: `
  - click: "#edge"
  - expect: {text: edge, in: "#log"}`},
	{name: "click a button far down the page (scrolled to)", page: "click.html", steps: `
  - click: "#far"
  - expect: {text: far, in: "#log"}`},
	{name: "click a display: contents button by its text", page: "click.html", steps: `
  - click: {text: In contents}
  - expect: {text: contents, in: "#log"}`},
	{name: "click at a point of the element (padding box, as offsetX)", page: "click.html", steps: `
  - click: {target: "#bordered", at: {x: 20, y: 10}}
  - expect: {text: offset 20 10, in: "#log"}`},
	{name: "triple click selects a paragraph", page: "click.html", steps: `
  - click: {target: "#para", count: 3}
  - expect: {text: clicks 3, in: "#log"}
  - expect: {js: "getSelection().toString().trim() === 'Triple click selects this whole paragraph of text.'"}`},
	{name: "double click", page: "click.html", steps: `
  - click: {target: "#corner", count: 2}
  - expect: {text: dbl 2, in: "#log"}`},
	{name: "right click opens the context menu", page: "click.html", steps: `
  - click: {target: "#corner", button: right}
  - expect: {text: context, in: "#log"}`},
	{name: "click at a point of the viewport", page: "click.html", steps: `
  - click: {x: 720, y: 620}
  - expect: {text: point 720 620, in: "#log"}`},
	{name: "click with Shift held presses it as a key", page: "click.html", steps: `
  - click: {target: "#mods", modifiers: [Shift]}
  - expect: {text: keydown Shift, in: "#log"}
  - expect: {text: mods true false, in: "#log"}`},
	{name: "a target the first scroll leaves under a sticky header is scrolled again", page: "cover.html", steps: `
  - click: "#target"
  - expect: {text: target, in: "#log"}`},
	{name: "a span with pointer-events: none in a button: the button takes the click", page: "cover.html", steps: `
  - click: {text: Span label}
  - expect: {text: button, in: "#log"}`},
	{name: "text in a role=button: the button takes the click", page: "cover.html", steps: `
  - click: {text: Inner role text}
  - expect: {text: role, in: "#log"}`},
	{name: "a disabled button is clicked once enabled", page: "cover.html", steps: `
  - click: "#late"
  - expect: {text: late, in: "#log"}`},
	{name: "a page-wide overlay: refused, naming what covers which point", page: "cover.html?overlay", steps: `
  - click: {css: "#target"}
    timeout: 3s`, fails: `<div id="overlay" class="overlay"></div> intercepts pointer events at (`},
	{name: "an overlay that slides away: the click waits for it", page: "flyover.html", steps: `
  - click: "#btn"
  - expect: {text: clicked clear, in: "#log"}`},

	// Checkboxes and radios, native and ARIA.
	{name: "check a see-through checkbox under its styled label", page: "checks.html", steps: `
  - check: "#agree"
  - expect: {checked: "#agree"}`},
	{name: "check a checkbox its label covers", page: "checks.html", steps: `
  - check: "#covered-agree"
  - expect: {checked: "#covered-agree"}`},
	{name: "check and uncheck role=checkbox by aria-checked", page: "checks.html", steps: `
  - check: "#aria"
  - expect: {attribute: {name: aria-checked, value: "true"}, target: "#aria"}
  - check: "#aria"
  - uncheck: "#aria"
  - expect: {unchecked: "#aria"}`},
	{name: "check role=switch", page: "checks.html", steps: `
  - check: {role: switch, name: Wi-Fi}
  - expect: {checked: "#switch"}`},
	{name: "check something that is not a checkbox: refused", page: "checks.html", steps: `
  - check: "#plain"`, fails: "is not a checkbox or radio button"},
	{name: "uncheck a radio button: refused", page: "checks.html", steps: `
  - uncheck: "#r1"`, fails: "is a radio button"},
	{name: "a checkbox whose click is cancelled: says it did not change", page: "checks.html", steps: `
  - check: "#stuck"`, fails: "clicked, but it is still unchecked"},
	{name: "a control inside its own label is named by the label's text, and only by it", page: "checks.html", steps: `
  - check: {role: checkbox, name: I agree, exact: true}
  - expect: {checked: "#agree"}
  - fill: {into: {role: textbox, name: Nickname, exact: true}, value: Ada}
  - fill: {into: {role: textbox, name: Nickname, exact: true}, value: Bob}
  - expect: {value: Bob, target: "#nick"}`},
	{name: "check a checkbox by its label", page: "checks.html", steps: `
  - check: {label: Check me by my label}
  - expect: {checked: "#by-label"}`},

	// Fill.
	{name: "fill waits for a read-only field to become editable", page: "forms.html", steps: `
  - fill: {into: "#later", value: new}
  - expect: {value: new, target: "#later"}`},
	{name: "fill a checkbox: refused", page: "forms.html", steps: `
  - fill: {into: "#checkbox", value: x}`, fails: "an input of type checkbox cannot be filled; use check or uncheck"},
	{name: "fill a number field with text: refused", page: "forms.html", steps: `
  - fill: {into: "#number", value: abc}`, fails: `cannot type "abc" into a number input`},
	{name: "fill a number field", page: "forms.html", steps: `
  - fill: {into: "#number", value: "-10e5"}
  - expect: {value: "-10e5", target: "#number"}`},
	{name: "fill a date, and refuse a date that does not exist", page: "forms.html", steps: `
  - fill: {into: "#date", value: "2020-03-02"}
  - expect: {value: "2020-03-02", target: "#date"}
  - fill: {into: "#date", value: "2020-13-05"}`, fails: `"2020-13-05" is not a value an input of type date takes`},
	{name: "fill a range and a colour", page: "forms.html", steps: `
  - fill: {into: "#range", value: "42"}
  - fill: {into: "#colour", value: "#AbCd00"}
  - expect: {value: "42", target: "#range"}
  - expect: {value: "#abcd00", target: "#colour"}`},
	{name: "fill contenteditable replaces its text", page: "forms.html", steps: `
  - fill: {into: "#editable", value: Hello}
  - expect: {text: Hello, in: "#editable", exact: true}`},
	{name: "fill replaces a field's whole text, whatever was selected", page: "forms.html", steps: `
  - fill: {into: "#selected", value: two}
  - fill: {into: "#area", value: new text}
  - expect: {value: two, target: "#selected"}
  - expect: {value: new text, target: "#area"}`},
	{name: "fill sends trusted input events", page: "forms.html", steps: `
  - fill: {into: "#trusted", value: abc}
  - expect: {text: beforeinput 1 trusted true, in: "#events"}`},
	{name: "fill with nothing clears", page: "forms.html", steps: `
  - fill: {into: "#area", value: ""}
  - expect: {value: "", target: "#area"}`},

	// Select.
	{name: "select waits for its option to appear", page: "select.html", steps: `
  - select: {into: "#later", label: Green}
  - expect: {text: "later: g", in: "#out"}`},
	{name: "select waits for a disabled option to be enabled", page: "select.html", steps: `
  - select: {into: "#off", label: Beta}
  - expect: {value: b, target: "#off"}`},
	{name: "select never picks a disabled option", page: "select.html", steps: `
  - select: {into: "#never", label: Beta}
    timeout: 3s`, fails: "is disabled"},
	{name: "select several options of a multiple select", page: "select.html", steps: `
  - select: {into: "#many", label: [Red, Blue]}
  - expect: {text: "many: Red,Blue", in: "#out"}`},
	{name: "select by index", page: "select.html", steps: `
  - select: {into: "#indexed", index: 2}
  - expect: {value: Two, target: "#indexed"}`},
	{name: "select by a label with odd white space", page: "select.html", steps: `
  - select: {into: "#spaced", label: HTML}
  - expect: {js: "document.getElementById('spaced').selectedIndex === 0"}`},

	// Keyboard.
	{name: "Shift+a types A", page: "keys.html", steps: `
  - press: {key: Shift+a, into: "#field"}
  - expect: {value: A, target: "#field"}`},
	{name: "modifier keys report their side, numpad keys the keypad", page: "keys.html", steps: `
  - press: ShiftLeft
  - press: ShiftRight
  - press: NumpadSubtract
  - expect: {text: '"Shift" ShiftLeft loc1', in: "#log"}
  - expect: {text: '"Shift" ShiftRight loc2', in: "#log"}
  - expect: {text: '"-" NumpadSubtract loc3', in: "#log"}`},
	{name: "keys by code, numpad Enter and media keys", page: "keys.html", steps: `
  - press: KeyA
  - press: Shift+Digit3
  - press: NumpadEnter
  - press: AudioVolumeMute
  - expect: {text: '"a" KeyA loc0', in: "#log"}
  - expect: {text: '"#" Digit3 loc0', in: "#log"}
  - expect: {text: '"Enter" NumpadEnter loc3', in: "#log"}
  - expect: {text: '"AudioVolumeMute" AudioVolumeMute loc0', in: "#log"}`},
	{name: "hold Shift while clicking several items", page: "keys.html", steps: `
  - keydown: Shift
  - click: {text: Item 1}
  - click: {text: Item 3}
  - keyup: Shift
  - click: {text: Item 4}
  - expect: {text: item Item 1 with shift, in: "#log"}
  - expect: {text: item Item 3 with shift, in: "#log"}
  - expect: {text: item Item 4 without shift, in: "#log"}`},
	{name: "a key held down repeats", page: "keys.html", steps: `
  - keydown: a
  - keydown: a
  - keyup: a
  - expect: {text: '"a" KeyA loc0 repeat', in: "#log"}`},
	{name: "ControlOrMeta+A selects all", page: "keys.html", steps: `
  - press: {key: ControlOrMeta+a, into: "#area"}
  - press: Backspace
  - expect: {value: "", target: "#area"}`},
	{name: "type characters that are not on the keyboard", page: "keys.html", steps: `
  - type: {into: "#field", text: "héllo 嗨 😊"}
  - expect: {value: "héllo 嗨 😊", target: "#field"}`},

	// The page's turn between steps and between keys.
	{name: "keys after a double click land in the field focused in a timer", page: "turn.html", studio: true, steps: `
  - click: {text: Buy milk, count: 2}
  - press: Control+A
  - type: {text: Buy oat milk}
  - press: Enter
  - expect: {text: Buy oat milk, in: "#t1 label", exact: true}`},
	{name: "each typed key lands in the box a timer moved the focus to, typed fast", page: "turn.html", studio: true, steps: `
  - type: {into: "#otp1", text: "1234", delay: 1ms}
  - expect: {value: "1", target: "#otp1"}
  - expect: {value: "2", target: "#otp2"}
  - expect: {value: "3", target: "#otp3"}
  - expect: {value: "4", target: "#otp4"}`},
	{name: "Enter right after typing sees the model the page updated in a timer", page: "turn.html", studio: true, steps: `
  - type: {into: "#new", text: Walk the dog, delay: 1ms}
  - press: Enter
  - expect: {text: Walk the dog, in: "li.added", exact: true}
  - expect: {value: "", target: "#new"}`},

	// Drags.
	{name: "drag and drop a draggable card (HTML5)", page: "drag.html", studio: true, steps: `
  - drag: {from: "#card", to: "#done"}
  - expect: {text: dropped in done, in: "#log"}
  - expect: {count: 1, target: "#done .card"}`},
	{name: "drag a slider: every move holds the button", page: "drag.html", steps: `
  - drag: {from: "#thumb", to: {x: 670, y: 65}}
  - expect: {text: slider at 50, in: "#log"}`},
	{name: "drag a native range input", page: "drag.html", steps: `
  - drag: {from: "#range", to: {x: 815, y: 130}}
  - expect: {js: "document.getElementById('range').value > 90"}`},
	{name: "drag across text selects it", page: "drag.html", steps: `
  - drag: {from: {x: 25, y: 345}, to: {x: 300, y: 345}}
  - expect: {js: "getSelection().toString().length > 10"}`},
	{name: "drag onto a target that moves when the drag starts", page: "drag.html", steps: `
  - drag: {from: "#s1", to: "#s3"}
  - expect: {text: sorted One onto Three, in: "#log"}`},

	// Targets: Playwright's matching.
	{name: "label: finds a field by aria-labelledby", page: "targets.html", steps: `
  - fill: {into: {label: E-mail address}, value: ada@example.com}
  - expect: {value: ada@example.com, target: "#email"}`},
	{name: "label: names the label when none matches", page: "targets.html", steps: `
  - fill: {into: {label: Phone}, value: x}
    timeout: 3s`, fails: "no element matches"},
	{name: "text matches a case-insensitive substring, white space folded", page: "targets.html", steps: `
  - click: {text: "save CHANGES"}
  - expect: {text: saved, in: "#out", exact: true}`},
	{name: "text with exact matches the whole text only", page: "targets.html", steps: `
  - click: {text: Save, exact: true}
    timeout: 3s`, fails: "no element matches"},
	{name: "a target that matches nothing says what the page has near it", page: "targets.html", steps: `
  - click: {role: button, name: Save changez}
    timeout: 3s`, fails: `no element matches; the page has a button named "Save changes"`},
	{name: "the near-miss says what the page has when the wait ends, not at its last look", page: "targets.html", steps: `
  - eval: "setTimeout(() => { document.getElementById('save').textContent = 'Save chunges' }, 1500)"
  - click: {role: button, name: Save changez}
    timeout: 2500ms`, fails: `no element matches; the page has a button named "Save chunges"`},
	{name: "nth counts a page's own elements before those inside its components, as Playwright does", page: "targets.html", steps: `
  - click: {text: Twin, nth: 0}
  - expect: {text: light twin, in: "#out"}
  - click: {role: button, name: Twin, nth: 1}
  - expect: {text: shadow twin, in: "#out"}`},
	{name: "a role's name matches a substring, and exactly with exact", page: "targets.html", steps: `
  - click: {role: button, name: save as}
  - expect: {text: save as, in: "#out", exact: true}
  - click: {role: button, name: Save changes, exact: true}
  - expect: {text: saved, in: "#out", exact: true}`},
	{name: "a placeholder matches a substring", page: "targets.html", steps: `
  - fill: {into: {placeholder: search the}, value: x}
  - expect: {value: x, target: "#search"}`},
	{name: "two matches without nth: refused as ambiguous", page: "targets.html", steps: `
  - click: {text: Save}`, fails: "matches 2 elements"},
	{name: "count only the visible matches", page: "targets.html", steps: `
  - expect: {count: 3, target: "#list li"}
  - expect: {count: 2, target: {css: "#list li", visible: true}}`},

	// Assertions QA writes.
	{name: "expect exact text tells one item from a list", page: "expect.html", steps: `
  - expect: {text: Walk the dog, in: {css: "#two li", nth: 1}, exact: true}
  - expect: {text: Walk the dog, in: "#two", exact: true}
    timeout: 3s`, fails: `saw "Buy milkWalk the dog"`},
	{name: "expect checked, value, attribute, URL, title, JavaScript", page: "expect.html", steps: `
  - expect: {checked: "#agree"}
  - expect: {checked: {role: switch, name: Wi-Fi}}
  - expect: {value: Ada, target: "#name"}
  - expect: {attribute: {name: href, value: /docs}, target: "#docs"}
  - expect: {url: "*/pw/expect.html"}
  - expect: {title: Expectations}
  - expect: {js: "window.ready === true"}
  - expect: {focused: "#name"}
  - expect: {disabled: "#off"}
  - expect: {editable: "#name"}`},
	{name: "expect editable fails on a read-only field", page: "expect.html", steps: `
  - expect: {editable: "#ro"}
    timeout: 3s`, fails: "saw read-only"},

	// Frames.
	{name: "fill and click in a same-origin iframe", page: "frames.html", studio: true, steps: `
  - fill: {into: {css: "#name", frame: "#same"}, value: Ada}
  - click: {css: "#send", frame: "#same"}
  - expect: {text: "Hello, Ada", in: {css: "#out", frame: "#same"}}`},
	{name: "type and click in a cross-origin iframe (another process)", page: "frames.html", steps: `
  - type: {into: {label: Name, frame: {title: Checkout}}, text: Grace}
  - click: {role: button, name: Send, frame: "#cross"}
  - expect: {text: "Hello, Grace", in: {css: "#out", frame: "#cross"}}`},
	{name: "click in an iframe inside an iframe", page: "frames.html", steps: `
  - fill: {into: {css: "#name", frame: ["#outer", "#inner"]}, value: Nested}
  - click: {css: "#send", frame: ["#outer", "#inner"]}
  - expect: {text: "Hello, Nested", in: {css: "#out", frame: ["#outer", "#inner"]}}`},
	{name: "a point in a bordered iframe lands where it is asked", page: "frames.html", steps: `
  - click: {target: {css: "#where", frame: "#same"}, at: {x: 7, y: 5}}
  - expect: {text: "at 7,5", in: {css: "#out", frame: "#same"}}
  - click: {target: {css: "#where", frame: "#cross"}, at: {x: 9, y: 4}}
  - expect: {text: "at 9,4", in: {css: "#out", frame: "#cross"}}`},
	{name: "a step waits for an iframe that comes later", page: "frames.html", steps: `
  - click: {css: "#send", frame: "#later"}
  - expect: {text: "Hello,", in: {css: "#out", frame: "#later"}}`},
	{name: "a frame: that is not an iframe: refused", page: "frames.html", steps: `
  - click: {css: "#send", frame: "body"}`, fails: "an <iframe> was expected"},
}

// behaviourScript is one script running every behaviour of bs in turn:
// each starts on its page, and each step is optional and labelled with
// its behaviour's index, so one run tells each behaviour apart.
func behaviourScript(bs []behaviour) string {
	var b strings.Builder
	b.WriteString("steps:\n")
	for i, x := range bs {
		fmt.Fprintf(&b, "  - goto: ${serve.url}/pw/%s\n    label: b%d\n", x.page, i)
		for _, line := range strings.Split(strings.TrimPrefix(x.steps, "\n"), "\n") {
			b.WriteString(line + "\n")
			if strings.HasPrefix(line, "  - ") {
				fmt.Fprintf(&b, "    label: b%d\n    optional: true\n", i)
			}
		}
	}
	return b.String()
}

// judge says whether each behaviour held, from the run's steps.
func judge(bs []behaviour, steps []timeline.Step) (failed []string) {
	byLabel := map[string][]timeline.Step{}
	for _, st := range steps {
		byLabel[st.Label] = append(byLabel[st.Label], st)
	}
	for i, x := range bs {
		sts := byLabel[fmt.Sprintf("b%d", i)]
		var why string
		errs := 0
		for _, st := range sts {
			if st.Outcome == timeline.OutcomeOK {
				continue
			}
			errs++
			if x.fails == "" || !strings.Contains(st.Error, x.fails) {
				why = fmt.Sprintf("step %s at line %d: %s", st.Kind, st.Line, st.Error)
			}
		}
		switch {
		case len(sts) == 0:
			why = "did not run"
		case x.fails != "" && errs == 0:
			why = "passed, but should have failed with " + x.fails
		}
		if why != "" {
			failed = append(failed, fmt.Sprintf("%s: %s", x.name, why))
		}
	}
	return failed
}

// runBehaviours runs bs in one script, in the capture mode given, and
// says which failed (or why the run could not be made); attach and studio
// are the endpoints of the package's live and studio browsers it runs on.
// It may run on a goroutine of its own.
func runBehaviours(dir string, bs []behaviour, capture, attach, studio string) ([]string, error) {
	site, _ := filepath.Abs("testdata/site")
	path := filepath.Join(dir, "pw.yaml")
	body := "name: behaviours\nserve: " + site + "\ndefaults: {timeout: 5s, pointer_speed: 8000, beat: 20ms}\n" + behaviourScript(bs)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		return nil, err
	}
	s, err := scripts.Load(path, scripts.LoadOptions{})
	if err != nil {
		return nil, err
	}
	s.Browser.NoSandbox = testenv.NoSandbox()
	s.Browser.Capture = capture
	// What the behaviours are about is input, not footage: a live
	// capture takes one frame in four, small and coarse, so runs side by side
	// leave the pages their time.
	o := RunOptions{TakeDir: filepath.Join(dir, "take"),
		Attach: attach, Capture: recorder.Options{EveryNthFrame: 4, Quality: 30, MaxWidth: 320, MaxHeight: 180}}
	if capture == scripts.CaptureStudio {
		o.Studio = studio
	}
	res, err := Run(context.Background(), s, o)
	if err != nil {
		return nil, err
	}
	return judge(bs, res.Timeline.Steps), nil
}

// behaviourRuns is how many runs (each its own window) share the live
// behaviours at once: most of a behaviour's time is the page's and the
// pointer's pacing, which runs side by side on two cores.
const behaviourRuns = 4

// TestPlaywrightBehaviours runs every behaviour in live capture, and
// those where virtual time matters in studio capture too.
func TestPlaywrightBehaviours(t *testing.T) {
	testenv.Need(t, "chromium")
	groups := make([][]behaviour, behaviourRuns)
	for i, b := range behaviours {
		groups[i%behaviourRuns] = append(groups[i%behaviourRuns], b)
	}
	failed := make([][]string, behaviourRuns)
	errs := make([]error, behaviourRuns)
	// The runs side by side share the package's live browser, each in a
	// window of its own (as runs attached to one browser are).
	attach := liveEndpoint(t)
	var wg sync.WaitGroup
	for i := range groups {
		dir := t.TempDir()
		wg.Go(func() { failed[i], errs[i] = runBehaviours(dir, groups[i], scripts.CaptureLive, attach, "") })
	}
	wg.Wait()
	n := 0
	for i := range groups {
		if errs[i] != nil {
			t.Fatalf("run %d: %v", i, errs[i])
		}
		n += len(failed[i])
		for _, x := range failed[i] {
			t.Errorf("live: %s", x)
		}
	}
	t.Logf("live: %d of %d behaviours hold", len(behaviours)-n, len(behaviours))
}

func TestPlaywrightBehavioursStudio(t *testing.T) {
	testenv.Need(t, shellName)
	var bs []behaviour
	for _, b := range behaviours {
		if b.studio || os.Getenv("CLAPPER_ALL_STUDIO") != "" {
			bs = append(bs, b)
		}
	}
	failed, err := runBehaviours(t.TempDir(), bs, scripts.CaptureStudio, "", studioEndpoint(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("studio: %d of %d behaviours hold", len(bs)-len(failed), len(bs))
	for _, f := range failed {
		t.Errorf("studio: %s", f)
	}
}
