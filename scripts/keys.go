package scripts

import (
	"fmt"
	"strings"
)

// Chord is a key with the keys held while it is pressed: "Control+A" is
// {Modifiers: [Control], Key: "A"}. As in Playwright, every part is a key
// of the layout (LookupKey) and the parts before the last are held down in
// order while the last is pressed, then released in reverse; usually they
// are modifiers (Shift, Control, Alt, Meta, ControlOrMeta), and with Shift
// held a key gives its shifted value (Shift+a types "A").
type Chord struct {
	Modifiers []string // the keys held, in the order written
	Key       string   // the key pressed
}

// keyAliases are common names for keys that are spelt otherwise here.
var keyAliases = map[string]string{
	"ctrl": "Control", "control": "Control", "cmd": "Meta", "command": "Meta",
	"win": "Meta", "super": "Meta", "option": "Alt", "opt": "Alt",
	"esc": "Escape", "return": "Enter", "del": "Delete", "ins": "Insert",
	"up": "ArrowUp", "down": "ArrowDown", "left": "ArrowLeft", "right": "ArrowRight",
	"pgup": "PageUp", "pgdn": "PageDown", "pagedown": "PageDown", "pageup": "PageUp",
	"space": "Space", "spacebar": "Space", "bksp": "Backspace", "enter": "Enter",
	"shift": "Shift", "alt": "Alt", "meta": "Meta", "tab": "Tab", "escape": "Escape",
	"backspace": "Backspace", "delete": "Delete", "controlormeta": "ControlOrMeta",
}

// IsKey reports whether name is a key press and keydown accept: a key of
// the layout by code or value, or ControlOrMeta.
func IsKey(name string) bool {
	if name == ControlOrMeta {
		return true
	}
	_, ok := LookupKey(name)
	return ok
}

// parseChord parses a key or chord such as "Enter", "Control+A",
// "Shift+Tab", "KeyA", "NumpadEnter" or "Control++" (the plus key with
// Control). It returns what is wrong, or "".
func parseChord(s string) (Chord, string) {
	if s == "" {
		return Chord{}, "key must not be empty"
	}
	parts := splitChord(s)
	var c Chord
	seen := map[string]bool{}
	for i, p := range parts {
		last := i == len(parts)-1
		if p == "" {
			return Chord{}, fmt.Sprintf("key %q has an empty part; write chords like Control+A", s)
		}
		if !IsKey(p) {
			return Chord{}, fmt.Sprintf("unknown key name %q%s", p, keyHint(p))
		}
		if seen[p] {
			return Chord{}, fmt.Sprintf("key %q repeats %s", s, p)
		}
		seen[p] = true
		if last {
			c.Key = p
		} else {
			c.Modifiers = append(c.Modifiers, p)
		}
	}
	return c, ""
}

// splitChord splits a chord on "+", reading a trailing "+" as the plus key.
func splitChord(s string) []string {
	if s == "+" {
		return []string{"+"}
	}
	if strings.HasSuffix(s, "++") {
		return append(strings.Split(s[:len(s)-2], "+"), "+")
	}
	return strings.Split(s, "+")
}

// keyHint suggests the spelling of a misspelt key.
func keyHint(k string) string {
	if a, ok := keyAliases[strings.ToLower(k)]; ok && a != k {
		return fmt.Sprintf("; did you mean %q?", a)
	}
	if h := didYouMean(k, append(KeyNames(), ControlOrMeta)); h != "" {
		return h
	}
	return " (keys: a character of the US keyboard, a key name like Enter, ArrowDown, Shift or F5, or a code like KeyA, Digit3 or NumpadEnter)"
}
