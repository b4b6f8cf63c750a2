package scripts

import (
	"errors"
	"fmt"
	"strings"
)

// Modifiers are the modifier keys, as chords and click modifiers spell
// them. The session maps each to its input bit.
var Modifiers = []string{"Control", "Shift", "Alt", "Meta"}

// NamedKeys are the keys press accepts by name, besides single printable
// characters and the modifiers. The session maps each to a key event.
var NamedKeys = func() []string {
	k := []string{
		"Enter", "Tab", "Escape", "Backspace", "Delete", "Space",
		"ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight",
		"Home", "End", "PageUp", "PageDown", "Insert",
	}
	for i := 1; i <= 12; i++ {
		k = append(k, fmt.Sprintf("F%d", i))
	}
	return k
}()

// Chord is a key with the modifiers held while it is pressed: "Control+A"
// is {Modifiers: [Control], Key: "A"}; a modifier alone ("Shift") is a
// key with no modifiers.
type Chord struct {
	Modifiers []string // from Modifiers, in the order written
	Key       string   // a NamedKeys name, a modifier, or one printable character
}

// ParseChord parses a key or chord such as "Enter", "Control+A",
// "Shift+Tab" or "Control++" (the plus key with Control).
func ParseChord(s string) (Chord, error) {
	c, msg := parseChord(s)
	if msg != "" {
		return Chord{}, errors.New(msg)
	}
	return c, nil
}

// keyAliases are common names for keys that are spelt otherwise here.
var keyAliases = map[string]string{
	"ctrl": "Control", "control": "Control", "cmd": "Meta", "command": "Meta",
	"win": "Meta", "super": "Meta", "option": "Alt", "opt": "Alt",
	"esc": "Escape", "return": "Enter", "del": "Delete", "ins": "Insert",
	"up": "ArrowUp", "down": "ArrowDown", "left": "ArrowLeft", "right": "ArrowRight",
	"pgup": "PageUp", "pgdn": "PageDown", "pagedown": "PageDown", "pageup": "PageUp",
	"space": "Space", "spacebar": "Space", "bksp": "Backspace",
}

// isPrintable reports a single printable ASCII character other than space.
func isPrintable(s string) bool {
	return len(s) == 1 && s[0] > ' ' && s[0] < 0x7f
}

// parseChord parses a key or chord. It returns what is wrong, or "".
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
		if contains(Modifiers, p) {
			if seen[p] {
				return Chord{}, fmt.Sprintf("key %q repeats %s", s, p)
			}
			seen[p] = true
			if last {
				c.Key = p
			} else {
				c.Modifiers = append(c.Modifiers, p)
			}
			continue
		}
		if !last {
			return Chord{}, fmt.Sprintf("key %q: only the modifiers %s can come before the key, not %q",
				s, quoteList(Modifiers, "and"), p)
		}
		if isPrintable(p) || contains(NamedKeys, p) {
			c.Key = p
			continue
		}
		return Chord{}, fmt.Sprintf("unknown key name %q%s", p, keyHint(p))
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
	if a, ok := keyAliases[strings.ToLower(k)]; ok {
		return fmt.Sprintf("; did you mean %q?", a)
	}
	all := append(append([]string{}, NamedKeys...), Modifiers...)
	if h := didYouMean(k, all); h != "" {
		return h
	}
	return " (keys: a single character, " + strings.Join(NamedKeys, ", ") +
		", with modifiers " + quoteList(Modifiers, "and") + ")"
}
