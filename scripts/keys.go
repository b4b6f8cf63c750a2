package scripts

import (
	"fmt"
	"strings"
)

// namedKeys are the keys press accepts by name, besides single printable
// characters and the modifiers.
var namedKeys = func() []string {
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

// checkKey validates a key or chord such as "Enter", "Control+A",
// "Shift+Tab" or "Control++". It returns "" when the key is valid, else
// what is wrong.
func checkKey(s string) string {
	if s == "" {
		return "key must not be empty"
	}
	parts := splitChord(s)
	seen := map[string]bool{}
	for i, p := range parts {
		last := i == len(parts)-1
		if p == "" {
			return fmt.Sprintf("key %q has an empty part; write chords like Control+A", s)
		}
		if contains(modifierKeys, p) {
			if seen[p] {
				return fmt.Sprintf("key %q repeats %s", s, p)
			}
			seen[p] = true
			continue
		}
		if !last {
			return fmt.Sprintf("key %q: only the modifiers %s can come before the key, not %q",
				s, quoteList(modifierKeys, "and"), p)
		}
		if isPrintable(p) || contains(namedKeys, p) {
			continue
		}
		return fmt.Sprintf("unknown key name %q%s", p, keyHint(p))
	}
	return ""
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
	all := append(append([]string{}, namedKeys...), modifierKeys...)
	if h := didYouMean(k, all); h != "" {
		return h
	}
	return " (keys: a single character, " + strings.Join(namedKeys, ", ") +
		", with modifiers " + quoteList(modifierKeys, "and") + ")"
}
