package session

import (
	"testing"

	"github.com/clapper-dev/clapper/scripts"
)

// Every key and modifier the language accepts maps to a key event, and
// every modifier to its own input bit.
func TestEveryKeyOfTheLanguageMaps(t *testing.T) {
	for _, k := range append(append([]string{}, scripts.NamedKeys...), scripts.Modifiers...) {
		key, err := keyFor(k)
		if err != nil {
			t.Errorf("key %s: %v", k, err)
			continue
		}
		if k != "Space" && key.Key != k {
			t.Errorf("key %s maps to %q", k, key.Key)
		}
	}
	for c := byte('!'); c < 0x7f; c++ {
		if k, err := keyFor(string(c)); err != nil || k.Key != string(c) {
			t.Errorf("character %q: %+v, %v", c, k, err)
		}
	}
	seen := int64(0)
	for _, m := range scripts.Modifiers {
		b, err := modifierMask([]string{m})
		if err != nil || b == 0 || b&seen != 0 {
			t.Errorf("modifier %s: bit %d, %v", m, b, err)
		}
		seen |= b
	}
	if all, _ := modifierMask(scripts.Modifiers); all != 15 {
		t.Errorf("all modifiers: %d, want 15", all)
	}
	if _, err := modifierMask([]string{"Hyper"}); err == nil {
		t.Error("unknown modifier accepted")
	}
	if _, err := keyFor("Enterr"); err == nil {
		t.Error("misspelt key accepted")
	}
}
