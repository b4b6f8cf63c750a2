package session

import (
	"context"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

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
	delay := a.Delay
	if delay <= 0 {
		delay = r.s.Defaults.TypeDelay
	}
	return tab.keyboard.TypeText(ctx, a.Text, delay, a.Secret)
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

// modifierBits are CDP's bits for the language's modifiers
// (scripts.Modifiers).
var modifierBits = map[string]int64{"Alt": 1, "Control": 2, "Meta": 4, "Shift": 8}

// modifierMask converts modifier names (from scripts.Modifiers) to CDP's
// bit field.
func modifierMask(names []string) (int64, error) {
	var m int64
	for _, n := range names {
		b, ok := modifierBits[n]
		if !ok {
			return 0, fmt.Errorf("unknown modifier %q (use %v)", n, scripts.Modifiers)
		}
		m |= b
	}
	return m, nil
}

// keyFor maps a key of the language (a scripts.NamedKeys name, a modifier
// or one character) to its key event description.
func keyFor(name string) (*kb.Key, error) {
	if name == "Space" {
		return kb.Keys[' '], nil
	}
	if r := []rune(name); len(r) == 1 {
		if k, ok := kb.Keys[r[0]]; ok {
			return k, nil
		}
		return &kb.Key{Key: name, Text: name, Unmodified: name, Print: true}, nil
	}
	if k, ok := keysByName[name]; ok {
		return k, nil
	}
	return nil, fmt.Errorf("unknown key %q", name)
}

// keysByName indexes chromedp's key table by the key's name (Enter,
// ArrowDown, Control...).
var keysByName = func() map[string]*kb.Key {
	m := map[string]*kb.Key{}
	for _, k := range kb.Keys {
		if len([]rune(k.Key)) > 1 {
			m[k.Key] = k
		}
	}
	return m
}()

// Keyboard sends real key events to one tab.
type Keyboard struct {
	j   *Journal
	tab string
}

// TypeText types text one key at a time, delay apart. When secret is true
// the receipts record "•" instead of the characters. Key n is due n
// delays after the first, on the step's clock: a key slow to be
// acknowledged does not push back the ones after it (in studio mode,
// where input completes only as frames are made, this keeps the cadence
// on the frame grid from run to run).
func (k *Keyboard) TypeText(ctx context.Context, text string, delay time.Duration, secret bool) error {
	start, n := clockNow(ctx), 0
	for _, r := range text {
		if n > 0 && delay > 0 {
			if err := sleep(ctx, start+time.Duration(n)*delay-clockNow(ctx)); err != nil {
				return dispatched(err) // keys were sent
			}
		}
		n++
		name := string(r)
		if secret {
			name = "•"
		}
		for _, ev := range kb.Encode(r) {
			if err := k.key(ctx, ev, name); err != nil {
				return err
			}
		}
	}
	return nil
}

// Press sends a chord: the modifiers go down in order, the key is pressed
// and released, the modifiers come up in reverse. name is the chord as the
// script wrote it, for the receipts.
func (k *Keyboard) Press(ctx context.Context, chord scripts.Chord, name string) error {
	key, err := keyFor(chord.Key)
	if err != nil {
		return undispatched(err)
	}
	mods, err := modifierMask(chord.Modifiers)
	if err != nil {
		return undispatched(err)
	}
	held := make([]*kb.Key, len(chord.Modifiers))
	for i, m := range chord.Modifiers {
		if held[i], err = keyFor(m); err != nil {
			return undispatched(err)
		}
	}
	var cur int64
	down := 0 // modifiers pressed so far
	defer func() {
		if down == 0 {
			return
		}
		// A chord cut short never leaves a modifier held.
		c, cancel := afterwards(ctx)
		defer cancel()
		for i := down - 1; i >= 0; i-- {
			cur &^= modifierBits[chord.Modifiers[i]]
			_ = k.key(c, keyEvent(input.DispatchKeyEventTypeKeyUp, held[i], cur), held[i].Key)
		}
	}()
	for i, mk := range held {
		cur |= modifierBits[chord.Modifiers[i]]
		if err := k.key(ctx, keyEvent(input.DispatchKeyEventTypeRawKeyDown, mk, cur), mk.Key); err != nil {
			return err
		}
		down++
	}
	press := keyEvent(input.DispatchKeyEventTypeKeyDown, key, mods)
	switch {
	case key.Print && mods&^modifierBits["Shift"] == 0:
		press.Text, press.UnmodifiedText = key.Text, key.Unmodified
	case !key.Print && key.Text != "" && mods == 0: // Enter sends "\r" as text
		press.Text, press.UnmodifiedText = key.Text, key.Unmodified
	case !key.Print:
		press.Type = input.DispatchKeyEventTypeRawKeyDown
	}
	if err := k.key(ctx, press, name); err != nil {
		return err
	}
	if err := k.key(ctx, keyEvent(input.DispatchKeyEventTypeKeyUp, key, mods), name); err != nil {
		return err
	}
	for ; down > 0; down-- {
		i := down - 1
		cur &^= modifierBits[chord.Modifiers[i]]
		if err := k.key(ctx, keyEvent(input.DispatchKeyEventTypeKeyUp, held[i], cur), held[i].Key); err != nil {
			cur |= modifierBits[chord.Modifiers[i]] // released again on the way out
			return err
		}
	}
	return nil
}

func keyEvent(typ input.DispatchKeyEventType, k *kb.Key, mods int64) *input.DispatchKeyEventParams {
	return &input.DispatchKeyEventParams{Type: typ, Key: k.Key, Code: k.Code, WindowsVirtualKeyCode: k.Windows, NativeVirtualKeyCode: k.Native, Modifiers: mods}
}

func (k *Keyboard) key(ctx context.Context, ev *input.DispatchKeyEventParams, name string) error {
	r := timeline.Receipt{Kind: timeline.InputKey, Tab: k.tab, Key: name, Type: string(ev.Type)}
	return k.j.send(r, func() error {
		_, err := chromedp.Call(ctx, input.DispatchKeyEvent, *ev)
		return err
	})
}
