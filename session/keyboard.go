package session

import (
	"context"
	"fmt"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
)

// typeText types into a field (clicked first) or the focused element.
func (r *run) typeText(ctx context.Context, tab *Tab, a scripts.Type, rec *timeline.Step) error {
	if a.Into != nil {
		rec.Target = a.Into.String()
		if err := r.focus(ctx, tab, *a.Into, rec); err != nil {
			return err
		}
	}
	return tab.keyboard.TypeText(ctx, a.Text, a.KeyDelay(r.s.Defaults), a.Secret)
}

// press presses a key or chord, in a field (clicked first) or the focused
// element.
func (r *run) press(ctx context.Context, tab *Tab, a scripts.Press, rec *timeline.Step) error {
	rec.Target = a.Key
	if a.Into != nil {
		if err := r.focus(ctx, tab, *a.Into, rec); err != nil {
			return err
		}
	}
	return tab.keyboard.Press(ctx, a.Chord, a.Key)
}

// keyDown and keyUp press or release one key and leave it so: a key held
// by keydown is held through the steps that follow (its modifier applies
// to their clicks and keys) until keyup, and released at the end of the
// run in any case.
func (r *run) keyDown(ctx context.Context, tab *Tab, a scripts.KeyDown, rec *timeline.Step) error {
	rec.Target = a.Key
	return lastInput(tab.keyboard.Down(ctx, a.Key))
}

func (r *run) keyUp(ctx context.Context, tab *Tab, a scripts.KeyUp, rec *timeline.Step) error {
	rec.Target = a.Key
	return lastInput(tab.keyboard.Up(ctx, a.Key))
}

// Keyboard sends real key events to one tab, on the US layout of
// scripts.LookupKey, and knows which keys are held. Its methods run on the
// run's goroutine.
type Keyboard struct {
	j   *Journal
	tab string
	// pace gives the page its turn between keys and the beat between
	// steps (pace.go); nil sends at once.
	pace *pace
	// mac makes ControlOrMeta Meta (the browser runs on macOS).
	mac bool
	// held are the keys down, by the name they were pressed with, in the
	// order pressed; mods are the modifier bits they set.
	held []heldKey
	mods int64
}

type heldKey struct {
	name string
	key  scripts.Key
}

// resolve finds the key a name stands for, ControlOrMeta included.
func (k *Keyboard) resolve(name string) (string, scripts.Key, error) {
	if name == scripts.ControlOrMeta {
		name = "Control"
		if k.mac {
			name = "Meta"
		}
	}
	key, ok := scripts.LookupKey(name)
	if !ok {
		return "", scripts.Key{}, fmt.Errorf("unknown key %q", name)
	}
	return name, key, nil
}

// Modifiers is the modifier bits of the keys held now.
func (k *Keyboard) Modifiers() int64 { return k.mods }

// Down presses a key and keeps it down. A key already down is pressed
// again as an auto-repeat, as a held key repeats. With Shift held a key
// gives its shifted value; with Control, Alt or Meta held it types
// nothing.
func (k *Keyboard) Down(ctx context.Context, name string) error {
	return k.down(ctx, name, "")
}

// down is Down whose receipt names the key as receipt ("": the key's
// value, or the name as written for a key that is not a modifier).
func (k *Keyboard) down(ctx context.Context, name, receipt string) error {
	name, key, err := k.resolve(name)
	if err != nil {
		return undispatched(err)
	}
	repeat := slices.ContainsFunc(k.held, func(h heldKey) bool { return h.key.Code == key.Code })
	k.mods |= key.ModifierBit()
	if !repeat {
		k.held = append(k.held, heldKey{name, key})
	}
	ev := k.event(input.DispatchKeyEventTypeKeyDown, key)
	if repeat {
		ev.AutoRepeat = ptr(true)
	}
	return k.key(ctx, ev, receiptName(receipt, name, key))
}

// Up releases a key (one not down is released all the same, as
// Playwright's keyboard.up does).
func (k *Keyboard) Up(ctx context.Context, name string) error {
	return k.up(ctx, name, "")
}

func (k *Keyboard) up(ctx context.Context, name, receipt string) error {
	name, key, err := k.resolve(name)
	if err != nil {
		return undispatched(err)
	}
	k.held = slices.DeleteFunc(k.held, func(h heldKey) bool { return h.key.Code == key.Code })
	k.mods = 0
	for _, h := range k.held {
		k.mods |= h.key.ModifierBit()
	}
	return k.key(ctx, k.event(input.DispatchKeyEventTypeKeyUp, key), receiptName(receipt, name, key))
}

// ReleaseAll releases every key still held, in reverse order, even when
// ctx has ended: a run never leaves a key down.
func (k *Keyboard) ReleaseAll(ctx context.Context) {
	if len(k.held) == 0 {
		return
	}
	c, cancel := afterwards(ctx)
	defer cancel()
	for n := len(k.held); n > 0; n = len(k.held) {
		_ = k.Up(c, k.held[n-1].name) // forgets the key, sent or not
		if len(k.held) == n {
			k.held = k.held[:n-1] // never loop on a key that cannot be released
		}
	}
}

// event is the key event for key in the keyboard's state: shifted when
// Shift is held, without text when Control, Alt or Meta is, and a
// rawKeyDown (no keypress, no input) for a key that types nothing.
func (k *Keyboard) event(typ input.DispatchKeyEventType, key scripts.Key) *input.DispatchKeyEventParams {
	if k.mods&scripts.ModShift != 0 {
		key = key.Shifted()
	}
	text, unmodified := key.Text, key.Text
	if k.mods&(scripts.ModControl|scripts.ModAlt|scripts.ModMeta) != 0 {
		text = ""
	}
	if typ == input.DispatchKeyEventTypeKeyDown && text == "" {
		typ = input.DispatchKeyEventTypeRawKeyDown
	}
	ev := &input.DispatchKeyEventParams{Type: typ, Key: key.Key, Code: key.Code,
		WindowsVirtualKeyCode: int64(key.KeyCode), NativeVirtualKeyCode: int64(key.KeyCode),
		Modifiers: k.mods, Location: int64(key.Location)}
	if key.Location == 3 {
		ev.IsKeypad = ptr(true)
	}
	if typ == input.DispatchKeyEventTypeKeyDown {
		ev.Text, ev.UnmodifiedText = text, unmodified
	}
	return ev
}

// receiptName is how a receipt names a key: as given, else a modifier
// by its value (Shift for ShiftLeft, Control for ControlOrMeta), so the
// video's key overlay names it as a person does, else as written.
func receiptName(receipt, name string, key scripts.Key) string {
	switch {
	case receipt != "":
		return receipt
	case key.ModifierBit() != 0:
		return key.Key
	}
	return name
}

// TypeText types text one character at a time, delay apart, giving the
// page its turn after each. A character on the layout is typed as its key
// (A as the key A, without Shift, as Playwright types it); any other (é,
// emoji) is inserted as text, which fires input events but no key events.
// When secret is true the receipts record "•" instead of the characters.
// Key n is due n delays after the first, on the step's clock: a key slow
// to be acknowledged does not push back the ones after it (in studio
// mode, where input completes only as frames are made, this keeps the
// cadence on the frame grid from run to run).
func (k *Keyboard) TypeText(ctx context.Context, text string, delay time.Duration, secret bool) error {
	if err := k.j.ready(ctx, k.pace); err != nil {
		return err
	}
	return timed(ctx, scripts.TypingTime(text, delay), func() error { return k.typeKeys(ctx, text, delay, secret) })
}

// typeKeys types text's keys, key n due n delays after the first.
func (k *Keyboard) typeKeys(ctx context.Context, text string, delay time.Duration, secret bool) error {
	start, n := clockNow(ctx), 0
	tm := meter(ctx)
	for _, r := range text {
		if n > 0 {
			t0 := clockNow(ctx)
			k.pace.betweenKeys(ctx)
			tm.pageTime(clockNow(ctx)-t0, false)
			if delay > 0 {
				if err := sleep(ctx, start+time.Duration(n)*delay-clockNow(ctx)); err != nil {
					return dispatched(err) // keys were sent
				}
			}
		}
		n++
		name := string(r)
		if secret {
			name = "•"
		}
		if err := k.typeRune(ctx, r, name); err != nil {
			if n == utf8.RuneCountInString(text) {
				err = lastInput(err) // a page that closes on the text's last key
			}
			if n > 1 {
				return dispatched(err)
			}
			return err
		}
	}
	return nil
}

// typeRune types one character: its key down and up, or inserted text.
func (k *Keyboard) typeRune(ctx context.Context, r rune, name string) error {
	s := string(r)
	switch r {
	case '\n', '\r':
		s = "Enter"
	case '\t':
		s = "Tab"
	}
	key, ok := scripts.LookupKey(s)
	if !ok || (len(s) == 1 && key.Text != s) {
		return k.insert(ctx, s, name, insertedChar)
	}
	down := k.event(input.DispatchKeyEventTypeKeyDown, key)
	if err := k.key(ctx, down, name); err != nil {
		return err
	}
	return k.key(ctx, k.event(input.DispatchKeyEventTypeKeyUp, key), name)
}

// Press sends a chord: the keys before the last go down in order, the
// last is pressed and released, and those go up in reverse. A key the
// chord names that is already held (by keydown) stays held. name is the
// chord as the script wrote it, for the receipts.
func (k *Keyboard) Press(ctx context.Context, chord scripts.Chord, name string) error {
	var pressed []string // the chord's keys this press put down
	defer func() {
		if len(pressed) == 0 {
			return
		}
		// A chord cut short never leaves a key held.
		c, cancel := afterwards(ctx)
		defer cancel()
		for i := len(pressed) - 1; i >= 0; i-- {
			_ = k.Up(c, pressed[i])
		}
	}()
	for _, m := range chord.Modifiers {
		if k.isHeld(m) {
			continue
		}
		if err := k.Down(ctx, m); err != nil {
			return err
		}
		pressed = append(pressed, m)
	}
	// The key's receipts name the chord as written: the video's key
	// overlay shows "Ctrl+K" once, not its parts.
	if err := k.down(ctx, chord.Key, name); err != nil {
		return lastInput(err) // Enter in a window that closes on it
	}
	if err := k.up(ctx, chord.Key, name); err != nil {
		return lastInput(err)
	}
	for len(pressed) > 0 {
		m := pressed[len(pressed)-1]
		pressed = pressed[:len(pressed)-1]
		if err := k.Up(ctx, m); err != nil {
			return lastInput(err) // the page closed on the chord's key
		}
	}
	return nil
}

// isHeld reports whether the key name stands for is down.
func (k *Keyboard) isHeld(name string) bool {
	_, key, err := k.resolve(name)
	return err == nil && slices.ContainsFunc(k.held, func(h heldKey) bool { return h.key.Code == key.Code })
}

// The Type of a receipt of inserted text: a character typed that is not
// on the layout (shown by the video's key overlay like a key), or a value
// filled (not shown).
const (
	insertedChar  = "insertText"
	insertedValue = "fill"
)

// insert inserts text where the focus is, as an input method does: input
// events, no key events. name is what the receipt records.
func (k *Keyboard) insert(ctx context.Context, text, name, kind string) error {
	rc := timeline.Receipt{Kind: timeline.InputKey, Tab: k.tab, Key: name, Type: kind}
	return k.j.send(ctx, k.pace, rc, func() error {
		_, err := chromedp.Call(ctx, input.InsertText, input.InsertTextParams{Text: text})
		return err
	})
}

func (k *Keyboard) key(ctx context.Context, ev *input.DispatchKeyEventParams, name string) error {
	r := timeline.Receipt{Kind: timeline.InputKey, Tab: k.tab, Key: name, Type: string(ev.Type)}
	return k.j.send(ctx, k.pace, r, func() error {
		_, err := chromedp.Call(ctx, input.DispatchKeyEvent, *ev)
		return err
	})
}
