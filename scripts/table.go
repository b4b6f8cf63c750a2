package scripts

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// stepTable is the language's list of steps. Rules the table cannot say
// (which fields go together, defaults) live in the build functions.
func stepTable() []*stepSpec {
	target := fOf("target", kTarget, "the element")
	into := fOf("into", kTarget, "the form field")
	tabName := func(name, doc string) field { return fStr(name, doc).match(tabNameRE, tabHint) }
	return []*stepSpec{
		// Navigation.
		{name: "goto", traits: Traits{ChangesPage: true, Waits: true}, doc: "load a URL in the tab", short: "url",
			fields: []field{fStr("url", "absolute URL, or ${serve.url}/...").req()},
			build:  buildGoto},
		{name: "back", traits: Traits{ChangesPage: true, Waits: true}, doc: "go back in history", noArg: true, build: func(*bctx) Action { return Back{} }},
		{name: "forward", traits: Traits{ChangesPage: true, Waits: true}, doc: "go forward in history", noArg: true, build: func(*bctx) Action { return Forward{} }},
		{name: "reload", traits: Traits{ChangesPage: true, Waits: true}, doc: "reload the page", noArg: true, build: func(*bctx) Action { return Reload{} }},

		// Input.
		{name: "click", traits: Traits{ChangesPage: true, Focus: true}, doc: "move the pointer to an element (or a point of the viewport) and click it", short: "target", inline: "target", orPoint: true,
			fields: []field{target,
				fOf("at", kPoint, "the point to click, relative to the element's top-left corner (default: a point inside it)"),
				fOf("x", kNumber, "with y, instead of a target: a point of the viewport, CSS pixels"),
				fOf("y", kNumber, "with x: a point of the viewport, CSS pixels"),
				fStr("button", "mouse button, default left").oneOf("left", "right", "middle"),
				fInt("count", 1, 3, "2 for a double click, 3 for a triple click"),
				fOf("modifiers", kStrings, "keys held while clicking").oneOf(Modifiers...),
			},
			build: buildClick},
		{name: "hover", doc: "move the pointer onto an element", short: "target", inline: "target",
			fields: []field{target},
			build:  func(c *bctx) Action { return Hover{Target: c.targetVal("target")} }},
		{name: "move", doc: "move the pointer to an element or a point", short: "to",
			fields: []field{fOf("to", kPlace, "an element, or a point {x, y}").req()},
			build:  func(c *bctx) Action { return Move{To: c.place("to")} }},
		{name: "drag", traits: Traits{ChangesPage: true}, doc: "press at from, move to to (or by so far) with the button held, release",
			fields: []field{
				fOf("from", kPlace, "an element, or a point {x, y}").req(),
				fOf("to", kPlace, "an element, or a point {x, y}"),
				fOf("by", kPoint, "how far to move from where the drag starts {x, y} (a slider's knob)"),
			},
			groups: []group{{exactlyOne, []string{"to", "by"}}},
			build:  func(c *bctx) Action { return Drag{From: c.place("from"), To: c.place("to"), By: c.point("by")} }},
		{name: "type", traits: Traits{ChangesPage: true, Focus: true}, doc: "type text with real key events (type: TEXT types into the focused element)", short: "text",
			fields: []field{
				fOf("into", kTarget, "the field to click first (default: the focused element)"),
				fStr("text", "what to type").req(),
				fDur("delay", 0, 5*time.Second, true, "between keys (default: defaults.type_delay)"),
			},
			build: func(c *bctx) Action {
				return Type{Into: c.target("into"), Text: c.str("text"), Delay: c.dur("delay")}
			}},
		{name: "fill", traits: Traits{ChangesPage: true, Focus: true}, doc: "set a field's value at once",
			fields: []field{into.req(), fStr("value", "the new value").req().empty()},
			build: func(c *bctx) Action {
				return Fill{Into: c.targetVal("into"), Value: c.str("value")}
			}},
		{name: "press", traits: Traits{ChangesPage: true}, doc: "press a key or a chord like Control+A", short: "key",
			fields: []field{fStr("key", "Enter, Tab, a, Control+A, Shift+Tab...").req(), fOf("into", kTarget, "focus this element first")},
			build: func(c *bctx) Action {
				k := c.str("key")
				chord, msg := parseChord(k)
				switch {
				case msg == "" || !c.has("key"):
				case hasSecret(k, c.d.l.secrets):
					// Its parts would show in the message, which masks
					// only the whole value.
					c.errorf(c.pos("key"), "press: the secret's value is not a key or a chord like Control+A, and is not shown (keys: a character of the US keyboard, a key name like Enter or a code like KeyA, with modifiers %s)",
						quoteList(Modifiers, "and"))
				default:
					c.errorf(c.pos("key"), "press: %s", msg)
				}
				return Press{Key: k, Chord: chord, Into: c.target("into")}
			}},
		{name: "select", traits: Traits{ChangesPage: true}, doc: "pick options of a <select>, waiting for them to be there",
			fields: []field{into, target,
				fOf("label", kStrings, "the option's text, or a list of texts for a <select multiple>"),
				fOf("value", kStrings, "the option's value, or a list of values").empty(),
				fInt("index", 0, 0, "the option's index, 0-based").noMax()},
			groups: []group{{exactlyOne, []string{"into", "target"}}, {exactlyOne, []string{"label", "value", "index"}}},
			build: func(c *bctx) Action {
				t := c.targetVal("into")
				if c.has("target") {
					t = c.targetVal("target")
				}
				a := Select{Into: t, Labels: c.strs("label"), Values: c.strs("value")}
				if c.has("index") {
					i := c.integer("index")
					a.Index = &i
				}
				return a
			}},
		{name: "keydown", traits: Traits{ChangesPage: true}, doc: "press a key and keep it down until keyup (Shift held while clicking several items)", short: "key",
			fields: []field{fStr("key", "Shift, Control, a, KeyA...").req()},
			build: func(c *bctx) Action {
				c.checkKey("keydown")
				return KeyDown{Key: c.str("key")}
			}},
		{name: "keyup", traits: Traits{ChangesPage: true}, doc: "release a key keydown pressed", short: "key",
			fields: []field{fStr("key", "the key keydown pressed").req()},
			build: func(c *bctx) Action {
				c.checkKey("keyup")
				return KeyUp{Key: c.str("key")}
			}},
		{name: "check", traits: Traits{ChangesPage: true}, doc: "tick a checkbox or radio button", short: "target", inline: "target",
			fields: []field{target},
			build:  func(c *bctx) Action { return Check{Target: c.targetVal("target")} }},
		{name: "uncheck", traits: Traits{ChangesPage: true}, doc: "clear a checkbox", short: "target", inline: "target",
			fields: []field{target},
			build:  func(c *bctx) Action { return Uncheck{Target: c.targetVal("target")} }},
		{name: "scroll", traits: Traits{ChangesPage: true}, doc: "scroll the page or an element with the wheel",
			fields: []field{
				fOf("by", kScrollBy, "pixels down, or {x, y}"),
				fOf("to", kScrollTo, "top, bottom, an element, or a scroll offset {x, y}"),
				fDur("duration", 0, 30*time.Second, false, "of a smooth scroll"),
				fOf("in", kTarget, "the scrolling element (default: the page)"),
			},
			groups: []group{{exactlyOne, []string{"by", "to"}}},
			build: func(c *bctx) Action {
				a := Scroll{By: c.point("by"), Duration: c.dur("duration"), In: c.target("in")}
				if x := c.v["to"]; x != nil {
					switch t := x.v.(type) {
					case string:
						a.ToEdge = t
					case *Point:
						a.ToPoint = t
					case *Target:
						a.ToTarget = t
					}
				}
				return a
			}},
		{name: "upload", traits: Traits{ChangesPage: true}, doc: "set the files of a file input",
			fields: []field{into.req(), fOf("files", kStrings, "paths relative to the script").req()},
			build:  buildUpload},

		// Synchronisation.
		{name: "wait", traits: Traits{Waits: true}, doc: "wait for a condition (one of selector, text, url, js, network_idle)", short: "selector",
			fields: []field{
				fOf("selector", kTarget, "an element"),
				fStr("state", "of the element, default visible").oneOf("visible", "hidden", "attached", "detached"),
				fStr("text", "text present on the page"),
				fStr("url", "the page's URL matches this glob"),
				fStr("js", "a JavaScript expression becomes true"),
				fBool("network_idle", "no requests in flight for a moment"),
			},
			groups: []group{{exactlyOne, []string{"selector", "text", "url", "js", "network_idle"}}},
			build:  buildWait},

		// Presentation.
		{name: "pause", traits: Traits{Presentation: true}, doc: "dwell, kept in the video", short: "duration",
			fields: []field{fDur("duration", 0, 10*time.Minute, true, "how long").req()},
			build:  func(c *bctx) Action { return Pause{Duration: c.dur("duration")} }},
		{name: "chapter", traits: Traits{Presentation: true}, doc: "start a chapter", short: "title",
			fields: []field{fStr("title", "the chapter's title").req(), fStr("description", "a longer text")},
			build: func(c *bctx) Action {
				return Chapter{Title: c.str("title"), Description: c.str("description")}
			}},
		{name: "caption", traits: Traits{Presentation: true}, doc: "show a caption in the video", short: "text",
			fields: []field{fStr("text", "the caption").req(), fDur("duration", 0, time.Minute, true, "default 2s")},
			build: func(c *bctx) Action {
				a := Caption{Text: c.str("text"), Duration: 2 * time.Second}
				if c.has("duration") {
					a.Duration = c.dur("duration")
				}
				return a
			}},
		{name: "cursor", traits: Traits{Presentation: true}, doc: "hide, show or restyle the drawn pointer", short: "state",
			fields: []field{
				fStr("state", "hide or show").oneOf("hide", "show").short(),
				fBool("visible", "show or hide the pointer"),
				fStr("style", "the pointer's look").oneOf("arrow", "pointer", "text"),
			},
			groups: []group{{atLeastOne, []string{"visible", "style"}}},
			build: func(c *bctx) Action {
				var a Cursor
				if c.has("state") {
					vis := c.str("state") == "show"
					a.Visible = &vis
				}
				if c.has("visible") {
					vis := c.boolean("visible")
					a.Visible = &vis
				}
				a.Style = c.str("style")
				return a
			}},
		{name: "zoom", traits: Traits{Presentation: true}, doc: "zoom the video toward an element or region and hold there until zoom: reset, the next zoom or a new document", short: "reset",
			fields: []field{
				fStr("reset", "zoom back out").oneOf("reset").short(),
				fOf("target", kTarget, "zoom toward this element"),
				fOf("region", kRegion, "zoom toward this region {x, y, w, h}"),
				fNum("scale", 1, 4, "magnification, default 2; 1 zooms back out"),
				fDur("duration", 0, 10*time.Second, false, "of the zoom's motion"),
			},
			groups: []group{{atMostOne, []string{"target", "region"}}},
			build:  buildZoom},
		{name: "hold", traits: Traits{Presentation: true}, doc: "freeze a tab for presentation; hold: {tab: stage, max: 30s} resumes itself at the bound", short: "name",
			fields: []field{tabName("name", "the tab"), tabName("tab", "the tab (the same as name)"),
				fDur("max", 0, time.Hour, true, "resume by itself after this long")},
			groups: []group{{exactlyOne, []string{"name", "tab"}}},
			build: func(c *bctx) Action {
				n := "name"
				if c.has("tab") {
					n = "tab"
				}
				c.it.nameAt = c.pos(n)
				return Hold{Tab: c.str(n), Max: c.dur("max")}
			}},
		{name: "film", traits: Traits{Presentation: true}, doc: "choose the tab the video shows from here on", short: "name",
			fields: []field{tabName("name", "the tab to film").req()},
			build: func(c *bctx) Action {
				c.it.nameAt = c.pos("name")
				return Film{Tab: c.str("name")}
			}},
		{name: "handoff", traits: Traits{ChangesPage: true, Waits: true, Cut: true},
			doc: "let a person work in the tab (headed runs) until the page shows a URL or an element; cut from the video",
			fields: []field{
				fObj("until", "what the page shows when the person is done", fStr("url", "the page's URL matches this glob"),
					fOf("visible", kTarget, "this element is visible")).req(),
				fDur("timeout", 0, 24*time.Hour, true, "fail after this long, default 10m"),
				fStr("message", "what to ask the person to do"),
			},
			build: buildHandoff},
		{name: "resume", traits: Traits{Presentation: true}, doc: "resume a held tab", short: "name",
			fields: []field{tabName("name", "the tab").req()},
			build: func(c *bctx) Action {
				c.it.nameAt = c.pos("name")
				return Resume{Tab: c.str("name")}
			}},

		// Tabs.
		{name: "tab", traits: Traits{ChangesPage: true, Presentation: true}, doc: "open, switch to or close a named tab, or name a page the current tab opened; tab: NAME switches", short: "switch",
			fields: []field{
				tabName("open", "open a new tab with this name and switch to it"),
				tabName("popup", "name the page the current tab opened (a link with target=_blank, window.open) and switch to it; waits for it until the timeout"),
				tabName("switch", "make this tab current"),
				tabName("close", "close this tab"),
				fStr("url", "with open: what to load"),
			},
			groups: []group{{exactlyOne, []string{"open", "popup", "switch", "close"}}},
			build:  buildTab},

		// Evidence.
		{name: "expect", traits: Traits{Waits: true, Expectation: true}, doc: "assert what the page shows, polling until the timeout",
			fields: []field{
				fOf("visible", kTarget, "this element is visible"),
				fOf("hidden", kTarget, "this element is hidden or absent"),
				fStr("text", "this text is on the page (or in in:)"),
				fOf("in", kTarget, "with text: the element to search"),
				fBool("exact", "with text and in: the element's whole text is this (white space folded)"),
				fStr("value", "the form field target: has this value").empty(),
				fStr("url", "the URL matches this glob"),
				fStr("title", "the page title is this"),
				fInt("count", 0, 0, "target: matches this many elements (add visible: true to the target to count only those visible)").noMax(),
				fOf("checked", kTarget, "this checkbox or radio (native, or role checkbox, radio, switch with aria-checked) is checked"),
				fOf("unchecked", kTarget, "this checkbox or radio is not checked"),
				fOf("enabled", kTarget, "this element is enabled"),
				fOf("disabled", kTarget, "this element is disabled"),
				fOf("editable", kTarget, "this element is enabled and not read-only"),
				fOf("focused", kTarget, "this element has the focus"),
				fObj("attribute", "target: has this attribute, with this value if given",
					fStr("name", "the attribute's name").req(), fStr("value", "its value, exactly").empty()),
				fStr("js", "this JavaScript expression is truthy in the page"),
				fOf("target", kTarget, "with value, count or attribute: the element(s)"),
			},
			groups: []group{{exactlyOne, ExpectConditions}},
			build:  buildExpect},
		{name: "screenshot", doc: "save a PNG of the viewport or an element", short: "file",
			fields: []field{
				fStr("file", "a .png name in the output folder").req().match(pngRE, "a file name ending in .png"),
				fOf("target", kTarget, "only this element"),
			},
			build: func(c *bctx) Action { return Screenshot{File: c.str("file"), Target: c.target("target")} }},

		// Control.
		{name: "run", doc: "run the steps of another script file here", short: "file",
			fields: []field{
				fStr("file", "relative to this script").req(),
				fOf("env", kEnv, "variables for the included steps").match(varNameRE, varHint),
			}},
		{name: "repeat", doc: "repeat steps a number of times",
			fields: []field{fInt("times", 1, 1000, "how many times").req(), fOf("steps", kSteps, "the steps").req()}},
		{name: "dialog", doc: "answer the next dialog a page opens (alert, confirm, prompt, beforeunload) this way, whatever dialogs: says",
			fields: []field{
				fBool("accept", "true accepts it (OK; leave the page), false dismisses it (Cancel; stay); default true"),
				fStr("text", "typed into a prompt before it is accepted"),
			},
			build: func(c *bctx) Action {
				a := Dialog{Accept: true, Text: c.str("text")}
				if c.has("accept") {
					a.Accept = c.boolean("accept")
				}
				if a.Text != "" && !a.Accept {
					c.errorf(c.keyPos("text"), "dialog: text is typed into a prompt that is accepted; with accept: false it would be thrown away")
				}
				return a
			}},
		{name: "eval", traits: Traits{ChangesPage: true}, doc: "run JavaScript in the page", short: "js",
			fields: []field{fStr("js", "the script").req()},
			build:  func(c *bctx) Action { return Eval{JS: c.str("js")} }},
	}
}

var urlSchemes = []string{"http", "https", "file", "about", "data"}

func buildClick(c *bctx) Action {
	a := Click{Button: "left", Count: 1, Modifiers: c.strs("modifiers")}
	if c.has("x") || c.has("y") {
		if c.has("target") {
			c.errorf(c.at, "click: give a target or a point {x, y} of the viewport, not both")
		}
		if !c.has("x") || !c.has("y") {
			c.errorf(c.at, "click: a point of the viewport needs both x and y, like click: {x: 100, y: 200}")
		} else {
			a.Point = &Point{X: c.num("x"), Y: c.num("y")}
		}
		if c.has("at") {
			c.errorf(c.keyPos("at"), "click: at goes with a target (a point inside it); with x and y the point is already given")
		}
	} else {
		a.Target = c.targetVal("target")
		a.At = c.point("at")
	}
	if c.has("button") {
		a.Button = c.str("button")
	}
	if c.has("count") {
		a.Count = c.integer("count")
	}
	return a
}

// checkKey reports a key name keydown or keyup does not know.
func (c *bctx) checkKey(step string) {
	if k := c.str("key"); c.has("key") && !IsKey(k) {
		if hasSecret(k, c.d.l.secrets) {
			c.errorf(c.pos("key"), "%s: the secret's value is not a key, and is not shown", step)
			return
		}
		c.errorf(c.pos("key"), "%s: unknown key name %q%s", step, k, keyHint(k))
	}
}

func buildGoto(c *bctx) Action {
	c.checkURL("goto")
	return Goto{URL: c.str("url")}
}

// checkURL is the one rule for a URL a step loads (goto's, a tab's
// open): absolute, with a scheme of urlSchemes, or under ${serve.url}.
func (c *bctx) checkURL(step string) {
	u := c.str("url")
	if !c.has("url") || strings.HasPrefix(u, ServeVar) {
		return
	}
	p, err := url.Parse(u)
	switch {
	case err != nil:
		c.errorf(c.pos("url"), "%s: %q is not a URL", step, u)
	case p.Scheme == "":
		c.errorf(c.pos("url"), "%s: %q needs a scheme, like https://%s (or ${serve.url}/...)", step, u, strings.TrimPrefix(u, "//"))
	case !contains(urlSchemes, strings.ToLower(p.Scheme)):
		c.errorf(c.pos("url"), "%s: scheme %q is not one of %s", step, p.Scheme, quoteList(urlSchemes, "or"))
	}
}

func buildUpload(c *bctx) Action {
	a := Upload{Into: c.targetVal("into")}
	x := c.v["files"]
	if x == nil {
		return a
	}
	l := x.v.(strList)
	for i, f := range l.s {
		p := f
		if !filepath.IsAbs(p) {
			p = filepath.Join(c.d.dir, p)
		}
		fi, err := os.Stat(p)
		switch {
		case err != nil:
			c.errorf(l.at[i], "upload: cannot use %q: %s", f, reason(err))
		case fi.IsDir():
			c.errorf(l.at[i], "upload: %q is a folder, not a file", f)
		}
		a.Files = append(a.Files, p)
	}
	return a
}

func buildWait(c *bctx) Action {
	a := Wait{Target: c.target("selector"), State: c.str("state"), Text: c.str("text"),
		URL: c.str("url"), JS: c.str("js"), NetworkIdle: c.boolean("network_idle")}
	if c.has("state") && !c.has("selector") {
		c.errorf(c.keyPos("state"), "wait: state goes with selector, like wait: {selector: \"#spinner\", state: hidden}")
	}
	if c.has("network_idle") && !a.NetworkIdle {
		c.errorf(c.pos("network_idle"), "wait: network_idle: false waits for nothing; write network_idle: true")
	}
	if a.Target != nil && a.State == "" {
		a.State = "visible"
	}
	return a
}

func buildHandoff(c *bctx) Action {
	a := Handoff{Timeout: 10 * time.Minute, Message: c.str("message")}
	if c.has("timeout") {
		a.Timeout = c.dur("timeout")
	}
	if x := c.v["until"]; x != nil {
		u := x.v.(vals)
		if y := u["url"]; y != nil {
			a.URL = y.v.(string)
		}
		if y := u["visible"]; y != nil {
			a.Visible = y.v.(*Target)
		}
		if (a.URL == "") == (a.Visible == nil) {
			c.errorf(c.pos("until"), "handoff: until needs one of url or visible, like until: {url: \"*/dashboard\"}")
		}
	}
	return a
}

func buildZoom(c *bctx) Action {
	if c.has("reset") {
		return Zoom{Scale: 1}
	}
	a := Zoom{Target: c.target("target"), Duration: c.dur("duration"), Scale: 2}
	if x := c.v["region"]; x != nil {
		a.Region = x.v.(*Rect)
	}
	if c.has("scale") {
		a.Scale = c.num("scale")
	}
	aimed := c.has("target") || c.has("region")
	switch {
	case !aimed && !c.has("scale"):
		c.errorf(c.at, "zoom needs a target or a region (or scale: 1, or zoom: reset, to zoom back out)")
	case !aimed && a.Scale != 1:
		c.errorf(c.pos("scale"), "zoom: scale %s needs a target or a region to zoom toward", fmtNum(a.Scale))
	}
	return a
}

func buildTab(c *bctx) Action {
	var a Tab
	for _, op := range []string{TabOpen, TabPopup, TabSwitch, TabClose} {
		if c.has(op) {
			a.Op, a.Name = op, c.str(op)
			c.it.nameAt = c.pos(op)
		}
	}
	a.URL = c.str("url")
	if c.has("url") && a.Op != TabOpen && a.Op != "" {
		c.errorf(c.keyPos("url"), "tab: url goes with open, like tab: {open: docs, url: https://...}")
	} else {
		c.checkURL("tab")
	}
	switch {
	case a.Op == TabOpen && a.Name == FirstTab:
		c.errorf(c.pos("open"), "tab: main is the tab every run starts in; open a tab with another name")
	case a.Op == TabPopup && a.Name == FirstTab:
		c.errorf(c.pos("popup"), "tab: main is the tab every run starts in; name the page it opened otherwise")
	}
	return a
}

func buildExpect(c *bctx) Action {
	var a Expect
	for _, w := range ExpectConditions {
		if c.has(w) {
			a.What = w
		}
	}
	switch a.What {
	case ExpectVisible, ExpectHidden, ExpectChecked, ExpectUnchecked, ExpectEnabled, ExpectDisabled, ExpectEditable, ExpectFocused:
		a.Target = c.target(a.What)
	case ExpectText:
		a.Want, a.Target, a.Exact = c.str("text"), c.target("in"), c.boolean("exact")
	case ExpectValue:
		a.Want, a.Target = c.str("value"), c.target("target")
	case ExpectURL, ExpectTitle, ExpectJS:
		a.Want = c.str(a.What)
	case ExpectCount:
		a.Count, a.Target = c.integer("count"), c.target("target")
	case ExpectAttribute:
		a.Target = c.target("target")
		if x := c.v["attribute"]; x != nil {
			at := x.v.(vals)
			if y := at["name"]; y != nil {
				a.Attribute = y.v.(string)
			}
			if y := at["value"]; y != nil {
				a.Want, a.HasValue = y.v.(string), true
			}
		}
	}
	if c.has("exact") && a.What != ExpectText && a.What != "" {
		c.errorf(c.keyPos("exact"), "expect: exact goes with text, like expect: {text: Saved, in: \"#status\", exact: true}")
	}
	needsTarget := a.What == ExpectValue || a.What == ExpectCount || a.What == ExpectAttribute
	switch {
	case c.has("in") && a.What != ExpectText && a.What != "":
		c.errorf(c.keyPos("in"), "expect: in goes with text, like expect: {text: Saved, in: \"#status\"}")
	case c.has("target") && a.What == ExpectText:
		// Playwright's toHaveText on a locator: here the element goes in in:.
		c.errorf(c.keyPos("target"), "expect: with text, the element to search goes in in:, like expect: {text: Saved, in: \"#status\"} (add exact: true for its whole text)")
	case c.has("target") && !needsTarget && a.What != "":
		c.errorf(c.keyPos("target"), "expect: target goes with value, count or attribute; write expect: {%s: ...} alone", a.What)
	case needsTarget && !c.has("target"):
		c.errorf(c.keyPos(a.What), "expect: %s needs target, like expect: {%s: ..., target: \"#field\"}", a.What, a.What)
	}
	return a
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// String describes a step for people: `click #save`, `type •••` for a
// secret. Other secret values may remain: pass it through Script.Mask
// before logging.
func (st Step) String() string {
	s := st.Kind
	switch a := st.Action.(type) {
	case Goto:
		s += " " + a.URL
	case Click:
		s += " " + a.Target.String()
	case Hover:
		s += " " + a.Target.String()
	case Check:
		s += " " + a.Target.String()
	case Uncheck:
		s += " " + a.Target.String()
	case Type:
		s += " " + describeSecretUse(a.Secret, a.Text)
	case Fill:
		s += " " + a.Into.String() + " " + describeSecretUse(a.Secret, a.Value)
	case Press:
		s += " " + a.Key
	case Select:
		s += " " + a.Into.String()
	case KeyDown:
		s += " " + a.Key
	case KeyUp:
		s += " " + a.Key
	case Upload:
		s += " " + a.Into.String()
	case Wait:
		switch {
		case a.Target != nil:
			s += " " + a.Target.String() + " " + a.State
		case a.Text != "":
			s += fmt.Sprintf(" text %q", a.Text)
		case a.URL != "":
			s += " url " + a.URL
		case a.JS != "":
			s += " js"
		case a.NetworkIdle:
			s += " network idle"
		}
	case Pause:
		s += " " + a.Duration.String()
	case Chapter:
		s += fmt.Sprintf(" %q", a.Title)
	case Caption:
		s += fmt.Sprintf(" %q", a.Text)
	case Hold:
		s += " " + a.Tab
	case Resume:
		s += " " + a.Tab
	case Film:
		s += " " + a.Tab
	case Tab:
		s += " " + a.Op + " " + a.Name
	case Expect:
		s += " " + a.What
		if a.Target != nil {
			s += " " + a.Target.String()
		}
	case Screenshot:
		s += " " + a.File
	case Eval:
		if a.Secret {
			s += " •••"
		}
	case Dialog:
		if a.Accept {
			s += " accept"
		} else {
			s += " dismiss"
		}
		if a.Secret {
			s += " •••"
		}
	}
	if st.Label != "" {
		s += fmt.Sprintf(" (%s)", st.Label)
	}
	return s
}
