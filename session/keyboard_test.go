package session

import (
	"testing"

	"github.com/chromedp/cdproto/input"

	"github.com/clapper-dev/clapper/recorder"
	"github.com/clapper-dev/clapper/scripts"
)

// Every key the language accepts maps to a key event of the US layout:
// its code, value, location and what it types, in every state of Shift and
// Control.
func TestEveryKeyOfTheLanguageMaps(t *testing.T) {
	names := append(scripts.KeyNames(), scripts.Modifiers...)
	for c := byte(' '); c < 0x7f; c++ {
		names = append(names, string(c))
	}
	for _, name := range names {
		for _, mods := range []int64{0, scripts.ModShift, scripts.ModControl} {
			k := &Keyboard{mods: mods}
			n, key, err := k.resolve(name)
			if err != nil {
				t.Errorf("key %q: %v", name, err)
				continue
			}
			ev := k.event(input.DispatchKeyEventTypeKeyDown, key)
			if ev.Code == "" || ev.Key == "" {
				t.Errorf("key %q (%s) with modifiers %d: %+v", name, n, mods, ev)
			}
			if mods == scripts.ModControl && ev.Text != "" {
				t.Errorf("key %q with Control types %q", name, ev.Text)
			}
			if (ev.Text == "") != (ev.Type == input.DispatchKeyEventTypeRawKeyDown) {
				t.Errorf("key %q: type %s with text %q", name, ev.Type, ev.Text)
			}
		}
	}
	for _, c := range []struct {
		name      string
		mods      int64
		key, code string
		text      string
		keyCode   int64
		location  int64
		keypad    bool
	}{
		{"a", 0, "a", "KeyA", "a", 65, 0, false},
		{"a", scripts.ModShift, "A", "KeyA", "A", 65, 0, false},
		{"A", 0, "A", "KeyA", "A", 65, 0, false},
		{"KeyA", scripts.ModShift, "A", "KeyA", "A", 65, 0, false},
		{"Digit3", scripts.ModShift, "#", "Digit3", "#", 51, 0, false},
		{"#", 0, "#", "Digit3", "#", 51, 0, false},
		{"Shift", 0, "Shift", "ShiftLeft", "", 16, 1, false},
		{"ShiftRight", 0, "Shift", "ShiftRight", "", 16, 2, false},
		{"ControlOrMeta", 0, "Control", "ControlLeft", "", 17, 1, false},
		{"NumpadEnter", 0, "Enter", "NumpadEnter", "\r", 13, 3, true},
		{"NumpadSubtract", 0, "-", "NumpadSubtract", "-", 109, 3, true},
		{"-", 0, "-", "Minus", "-", 189, 0, false},
		{"Enter", 0, "Enter", "Enter", "\r", 13, 0, false},
		{"Space", 0, " ", "Space", " ", 32, 0, false},
		{"AudioVolumeMute", 0, "AudioVolumeMute", "AudioVolumeMute", "", 173, 0, false},
		{"MediaPlayPause", 0, "MediaPlayPause", "MediaPlayPause", "", 179, 0, false},
		{"F13", 0, "F13", "F13", "", 124, 0, false},
		{"a", scripts.ModControl, "a", "KeyA", "", 65, 0, false},
	} {
		k := &Keyboard{mods: c.mods}
		_, key, err := k.resolve(c.name)
		if err != nil {
			t.Errorf("%q: %v", c.name, err)
			continue
		}
		ev := k.event(input.DispatchKeyEventTypeKeyDown, key)
		keypad := ev.IsKeypad != nil && *ev.IsKeypad
		if ev.Key != c.key || ev.Code != c.code || ev.Text != c.text || ev.WindowsVirtualKeyCode != c.keyCode || ev.Location != c.location || keypad != c.keypad {
			t.Errorf("%q with modifiers %d: key %q code %q text %q keyCode %d location %d keypad %v", c.name, c.mods, ev.Key, ev.Code, ev.Text, ev.WindowsVirtualKeyCode, ev.Location, keypad)
		}
	}
	if _, _, err := (&Keyboard{}).resolve("Hyper"); err == nil {
		t.Error("unknown key accepted")
	}
	if n, _, _ := (&Keyboard{mac: true}).resolve("ControlOrMeta"); n != "Meta" {
		t.Errorf("ControlOrMeta on macOS is %s", n)
	}
}

// ReleaseAll lets go of every key even when no release reaches the page
// (its tab closed): it ends, with no key held. A key whose release failed
// once made it drop a second key, and panic on the last.
func TestReleaseAllWhenThePageIsGone(t *testing.T) {
	for _, held := range [][]string{{"Enter"}, {"Shift", "a"}, {"Control", "Shift", "Enter"}} {
		k := &Keyboard{j: NewJournal(recorder.NewClock()), tab: "gone"}
		for _, name := range held {
			_, key, err := k.resolve(name)
			if err != nil {
				t.Fatal(err)
			}
			k.held = append(k.held, heldKey{name, key})
			k.mods |= key.ModifierBit()
		}
		k.ReleaseAll(t.Context()) // no browser: every release fails
		if len(k.held) != 0 || k.mods != 0 {
			t.Errorf("%v: still held %v (modifiers %d)", held, k.held, k.mods)
		}
		if n := len(k.j.Receipts()); n != len(held) {
			t.Errorf("%v: %d releases tried, want one a key", held, n)
		}
	}
}
