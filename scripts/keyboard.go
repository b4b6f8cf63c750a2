package scripts

import (
	"fmt"
	"sort"
	"strings"
)

// Key is one key of the keyboard clapper types on: a US layout, the one
// Playwright and Puppeteer type on, so that a key means the same thing in
// a clapper script as in their tests. The session turns a Key into key
// events; nothing else decides what a key is.
type Key struct {
	// Code names the physical key (KeyA, Digit3, ShiftLeft, NumpadEnter).
	Code string
	// Key is the key's value unshifted (a, 3, Shift, Enter), and ShiftKey
	// with Shift held ("" when Shift changes nothing).
	Key, ShiftKey string
	// KeyCode is the key's legacy keyCode (65 for A), and ShiftKeyCode
	// with Shift held (0: the same).
	KeyCode, ShiftKeyCode int
	// Text is what the key types unshifted ("" for none: arrows,
	// modifiers); with Shift held a printable key types ShiftKey.
	Text string
	// Location is KeyboardEvent.location: 0 standard, 1 left, 2 right,
	// 3 numpad.
	Location int
}

// Modifier bits of a key event, as CDP numbers them.
const (
	ModAlt     = 1
	ModControl = 2
	ModMeta    = 4
	ModShift   = 8
)

// ModifierBit is the bit a modifier key (Shift, ShiftLeft, Control...)
// sets while held, 0 for other keys.
func (k Key) ModifierBit() int64 {
	switch k.Key {
	case "Alt":
		return ModAlt
	case "Control":
		return ModControl
	case "Meta":
		return ModMeta
	case "Shift":
		return ModShift
	}
	return 0
}

// Shifted is the key as it is with Shift held: its value, keyCode and
// text change for a key that has a shifted value (a gives A, 3 gives #).
func (k Key) Shifted() Key {
	if k.ShiftKey == "" {
		return k
	}
	s := k
	s.Key = k.ShiftKey
	if k.ShiftKeyCode != 0 {
		s.KeyCode = k.ShiftKeyCode
	}
	if k.Text != "" && k.Location != 3 {
		s.Text = k.ShiftKey
	}
	return s
}

// Modifiers are the modifier keys by the names chords and click
// modifiers use. ControlOrMeta is Meta on macOS and Control elsewhere
// (the session decides by the browser's platform).
var Modifiers = []string{"Control", "Shift", "Alt", "Meta", "ControlOrMeta"}

// ControlOrMeta is the modifier that is Meta on macOS, Control elsewhere.
const ControlOrMeta = "ControlOrMeta"

// layout is the US keyboard: every key by its code. A key is found by its
// code, or by its value (unshifted or shifted): see LookupKey.
var layout = func() []Key {
	ks := []Key{
		{Code: "Escape", Key: "Escape", KeyCode: 27},
		{Code: "Backquote", Key: "`", ShiftKey: "~", KeyCode: 192},
		{Code: "Minus", Key: "-", ShiftKey: "_", KeyCode: 189},
		{Code: "Equal", Key: "=", ShiftKey: "+", KeyCode: 187},
		{Code: "Backslash", Key: `\`, ShiftKey: "|", KeyCode: 220},
		{Code: "Backspace", Key: "Backspace", KeyCode: 8},
		{Code: "Tab", Key: "Tab", KeyCode: 9},
		{Code: "BracketLeft", Key: "[", ShiftKey: "{", KeyCode: 219},
		{Code: "BracketRight", Key: "]", ShiftKey: "}", KeyCode: 221},
		{Code: "CapsLock", Key: "CapsLock", KeyCode: 20},
		{Code: "Semicolon", Key: ";", ShiftKey: ":", KeyCode: 186},
		{Code: "Quote", Key: "'", ShiftKey: `"`, KeyCode: 222},
		{Code: "Enter", Key: "Enter", KeyCode: 13, Text: "\r"},
		{Code: "ShiftLeft", Key: "Shift", KeyCode: 16, Location: 1},
		{Code: "Comma", Key: ",", ShiftKey: "<", KeyCode: 188},
		{Code: "Period", Key: ".", ShiftKey: ">", KeyCode: 190},
		{Code: "Slash", Key: "/", ShiftKey: "?", KeyCode: 191},
		{Code: "ShiftRight", Key: "Shift", KeyCode: 16, Location: 2},
		{Code: "ControlLeft", Key: "Control", KeyCode: 17, Location: 1},
		{Code: "MetaLeft", Key: "Meta", KeyCode: 91, Location: 1},
		{Code: "AltLeft", Key: "Alt", KeyCode: 18, Location: 1},
		{Code: "Space", Key: " ", KeyCode: 32, Text: " "},
		{Code: "AltRight", Key: "Alt", KeyCode: 18, Location: 2},
		{Code: "AltGraph", Key: "AltGraph", KeyCode: 225},
		{Code: "MetaRight", Key: "Meta", KeyCode: 92, Location: 2},
		{Code: "ContextMenu", Key: "ContextMenu", KeyCode: 93},
		{Code: "ControlRight", Key: "Control", KeyCode: 17, Location: 2},
		{Code: "PrintScreen", Key: "PrintScreen", KeyCode: 44},
		{Code: "ScrollLock", Key: "ScrollLock", KeyCode: 145},
		{Code: "Pause", Key: "Pause", KeyCode: 19},
		{Code: "PageUp", Key: "PageUp", KeyCode: 33},
		{Code: "PageDown", Key: "PageDown", KeyCode: 34},
		{Code: "Insert", Key: "Insert", KeyCode: 45},
		{Code: "Delete", Key: "Delete", KeyCode: 46},
		{Code: "Home", Key: "Home", KeyCode: 36},
		{Code: "End", Key: "End", KeyCode: 35},
		{Code: "ArrowLeft", Key: "ArrowLeft", KeyCode: 37},
		{Code: "ArrowUp", Key: "ArrowUp", KeyCode: 38},
		{Code: "ArrowRight", Key: "ArrowRight", KeyCode: 39},
		{Code: "ArrowDown", Key: "ArrowDown", KeyCode: 40},
		{Code: "NumLock", Key: "NumLock", KeyCode: 144},
		{Code: "NumpadDivide", Key: "/", KeyCode: 111, Location: 3},
		{Code: "NumpadMultiply", Key: "*", KeyCode: 106, Location: 3},
		{Code: "NumpadSubtract", Key: "-", KeyCode: 109, Location: 3},
		{Code: "NumpadAdd", Key: "+", KeyCode: 107, Location: 3},
		{Code: "NumpadEnter", Key: "Enter", KeyCode: 13, Text: "\r", Location: 3},
		{Code: "NumpadDecimal", Key: ".", ShiftKey: "Delete", KeyCode: 110, ShiftKeyCode: 46, Location: 3},
		{Code: "NumpadEqual", Key: "=", KeyCode: 187, Location: 3},
		{Code: "AudioVolumeMute", Key: "AudioVolumeMute", KeyCode: 173},
		{Code: "AudioVolumeDown", Key: "AudioVolumeDown", KeyCode: 174},
		{Code: "AudioVolumeUp", Key: "AudioVolumeUp", KeyCode: 175},
		{Code: "MediaTrackNext", Key: "MediaTrackNext", KeyCode: 176},
		{Code: "MediaTrackPrevious", Key: "MediaTrackPrevious", KeyCode: 177},
		{Code: "MediaStop", Key: "MediaStop", KeyCode: 178},
		{Code: "MediaPlayPause", Key: "MediaPlayPause", KeyCode: 179},
		{Code: "BrowserBack", Key: "BrowserBack", KeyCode: 166},
		{Code: "BrowserForward", Key: "BrowserForward", KeyCode: 167},
		{Code: "BrowserRefresh", Key: "BrowserRefresh", KeyCode: 168},
		{Code: "BrowserSearch", Key: "BrowserSearch", KeyCode: 170},
		{Code: "BrowserHome", Key: "BrowserHome", KeyCode: 172},
		{Code: "Help", Key: "Help", KeyCode: 6},
		{Code: "Power", Key: "Power"},
		{Code: "Eject", Key: "Eject"},
	}
	for i := 1; i <= 24; i++ {
		n := fmt.Sprintf("F%d", i)
		ks = append(ks, Key{Code: n, Key: n, KeyCode: 111 + i})
	}
	digitsShifted := ")!@#$%^&*("
	numpadShifted := []string{"Insert", "End", "ArrowDown", "PageDown", "ArrowLeft", "Clear", "ArrowRight", "Home", "ArrowUp", "PageUp"}
	numpadShiftedCode := []int{45, 35, 40, 34, 37, 12, 39, 36, 38, 33}
	for d := 0; d <= 9; d++ {
		c := string(rune('0' + d))
		ks = append(ks,
			Key{Code: "Digit" + c, Key: c, ShiftKey: digitsShifted[d : d+1], KeyCode: 48 + d},
			Key{Code: "Numpad" + c, Key: c, ShiftKey: numpadShifted[d], KeyCode: 96 + d, ShiftKeyCode: numpadShiftedCode[d], Location: 3})
	}
	for c := 'a'; c <= 'z'; c++ {
		ks = append(ks, Key{Code: "Key" + strings.ToUpper(string(c)), Key: string(c), ShiftKey: strings.ToUpper(string(c)), KeyCode: int(c - 'a' + 'A')})
	}
	for i := range ks {
		// A key whose value is one character types it.
		if ks[i].Text == "" && len([]rune(ks[i].Key)) == 1 {
			ks[i].Text = ks[i].Key
		}
	}
	return ks
}()

// keysByName finds a key by code, or by value: the first key in layout
// order with that value, so Shift is ShiftLeft and 1 is Digit1, not
// Numpad1. A shifted value (A, #) names its key with the shifted value:
// pressing "A" sends key A, keyCode 65, text A, without Shift.
var keysByName = func() map[string]Key {
	m := map[string]Key{}
	for _, k := range layout {
		m[k.Code] = k
	}
	for _, k := range layout {
		if _, ok := m[k.Key]; !ok {
			m[k.Key] = k
		}
	}
	for _, k := range layout {
		if k.ShiftKey == "" || k.Location == 3 {
			continue
		}
		if _, ok := m[k.ShiftKey]; !ok {
			m[k.ShiftKey] = k.Shifted()
		}
	}
	return m
}()

// LookupKey finds a key of the layout by its code (KeyA, Digit3,
// NumpadEnter, ShiftLeft), its value (a, A, #, Enter, Shift, ArrowDown),
// or Space. ControlOrMeta is not a key: resolve it first.
func LookupKey(name string) (Key, bool) {
	k, ok := keysByName[name]
	return k, ok
}

// KeyNames lists the names press accepts besides single characters:
// every code, and the values that are words (Enter, Shift...).
func KeyNames() []string {
	seen := map[string]bool{}
	var out []string
	for _, k := range layout {
		for _, n := range []string{k.Code, k.Key} {
			if len([]rune(n)) > 1 && !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	sort.Strings(out)
	return out
}
