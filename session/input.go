package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/clapper-dev/clapper/recorder"
	"github.com/clapper-dev/clapper/timeline"
)

// Journal collects input receipts on the take clock. Safe for concurrent use.
type Journal struct {
	mu       sync.Mutex
	clock    *recorder.Clock
	receipts []timeline.Receipt
	step     int
}

// NewJournal returns an empty journal on clock.
func NewJournal(clock *recorder.Clock) *Journal { return &Journal{clock: clock} }

// Receipts returns a copy of the receipts so far.
func (j *Journal) Receipts() []timeline.Receipt {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]timeline.Receipt(nil), j.receipts...)
}

func (j *Journal) setStep(i int) { j.mu.Lock(); j.step = i; j.mu.Unlock() }

// send runs one input command, stamping the receipt with the interval
// [sent, acked] and the step that sent it. It returns a classified error.
func (j *Journal) send(r timeline.Receipt, do func() error) error {
	j.mu.Lock()
	r.Step = j.step
	j.mu.Unlock()
	r.Sent = j.clock.Now()
	err := do()
	r.Acked = j.clock.Now()
	if err != nil {
		r.Error = err.Error()
	}
	j.mu.Lock()
	j.receipts = append(j.receipts, r)
	j.mu.Unlock()
	if err != nil {
		return dispatchErr(err)
	}
	return nil
}

// Outcome errors: a step error carries how far its effects may have gone.
type StepError struct {
	Outcome string // undispatched, rejected, unknown
	Err     error
}

func (e *StepError) Error() string { return e.Err.Error() }
func (e *StepError) Unwrap() error { return e.Err }

func undispatched(err error) error {
	var se *StepError
	if err == nil || errors.As(err, &se) {
		return err
	}
	return &StepError{Outcome: timeline.OutcomeUndispatched, Err: err}
}

// dispatchErr classifies an error from a command that was sent: a protocol
// error reply means the browser refused it; anything else (a timeout, a
// lost connection) leaves its effect unknown.
func dispatchErr(err error) error {
	var ce *cdproto.Error
	if errors.As(err, &ce) {
		return &StepError{Outcome: timeline.OutcomeRejected, Err: err}
	}
	return &StepError{Outcome: timeline.OutcomeUnknown, Err: err}
}

// Pointer drives one tab's mouse with real CDP input events, remembering
// where the pointer is so each movement starts where the last ended.
type Pointer struct {
	j      *Journal
	tab    string
	x, y   float64
	speed  float64
	cursor string
}

// MoveTo travels to (x, y) along a natural path, one mouseMoved per tick,
// paced in real time so the movement is seen as a person's.
func (p *Pointer) MoveTo(ctx context.Context, x, y float64) error {
	return p.MoveToAs(ctx, x, y, p.cursor)
}

// MoveToAs is MoveTo where the page's cursor at the destination is
// arrive: receipts along the way keep the cursor the pointer had, and the
// last one carries arrive.
func (p *Pointer) MoveToAs(ctx context.Context, x, y float64, arrive string) error {
	start := time.Now()
	path := PointerPath(p.x, p.y, x, y, p.speed, time.Second/60)
	for i, pt := range path {
		if i == len(path)-1 {
			p.cursor = arrive
		}
		if d := time.Until(start.Add(pt.At)); d > 0 {
			select {
			case <-ctx.Done():
				return undispatched(context.Cause(ctx))
			case <-time.After(d):
			}
		}
		if err := p.mouse(ctx, input.DispatchMouseEventTypeMouseMoved, pt.X, pt.Y, "", 0, 0); err != nil {
			return err
		}
	}
	return nil
}

// Click presses and releases button count times at the current position.
func (p *Pointer) Click(ctx context.Context, button string, count int, mods int64) error {
	if button == "" {
		button = "left"
	}
	if count < 1 {
		count = 1
	}
	for i := 1; i <= count; i++ {
		if err := p.mouse(ctx, input.DispatchMouseEventTypeMousePressed, p.x, p.y, button, i, mods); err != nil {
			return err
		}
		time.Sleep(40 * time.Millisecond) // a press a person could see
		if err := p.mouse(ctx, input.DispatchMouseEventTypeMouseReleased, p.x, p.y, button, i, mods); err != nil {
			return err
		}
	}
	return nil
}

// Down and Up press and release without moving (drag).
func (p *Pointer) Down(ctx context.Context) error {
	return p.mouse(ctx, input.DispatchMouseEventTypeMousePressed, p.x, p.y, "left", 1, 0)
}

func (p *Pointer) Up(ctx context.Context) error {
	return p.mouse(ctx, input.DispatchMouseEventTypeMouseReleased, p.x, p.y, "left", 1, 0)
}

// Wheel sends one wheel event at the current position.
func (p *Pointer) Wheel(ctx context.Context, dx, dy float64) error {
	r := timeline.Receipt{Kind: timeline.InputWheel, Tab: p.tab, X: p.x, Y: p.y, DeltaX: dx, DeltaY: dy}
	return p.j.send(r, func() error {
		_, err := chromedp.Call(ctx, dispatchWheel, wheelParams{
			Type: input.DispatchMouseEventTypeMouseWheel, X: p.x, Y: p.y, DeltaX: dx, DeltaY: dy,
		})
		return err
	})
}

// wheelParams is Input.dispatchMouseEvent for wheels: Chromium requires
// both deltas, and cdproto's params omit a zero delta.
type wheelParams struct {
	Type   input.DispatchMouseEventType `json:"type"`
	X      float64                      `json:"x"`
	Y      float64                      `json:"y"`
	DeltaX float64                      `json:"deltaX"`
	DeltaY float64                      `json:"deltaY"`
}

var dispatchWheel = cdp.Command[wheelParams, cdp.Empty]{Method: input.CommandDispatchMouseEvent}

func (p *Pointer) mouse(ctx context.Context, typ input.DispatchMouseEventType, x, y float64, button string, clicks int, mods int64) error {
	kind := timeline.InputMove
	switch typ {
	case input.DispatchMouseEventTypeMousePressed:
		kind = timeline.InputDown
	case input.DispatchMouseEventTypeMouseReleased:
		kind = timeline.InputUp
	}
	r := timeline.Receipt{Kind: kind, Tab: p.tab, X: x, Y: y, Button: button, Clicks: clicks, Cursor: p.cursor}
	err := p.j.send(r, func() error {
		params := input.DispatchMouseEventParams{Type: typ, X: x, Y: y, Modifiers: mods}
		if button != "" {
			params.Button = input.MouseButton(button)
			params.ClickCount = int64(clicks)
			if typ == input.DispatchMouseEventTypeMousePressed {
				params.Buttons = buttonsMask(button)
			}
		}
		_, err := chromedp.Call(ctx, input.DispatchMouseEvent, params)
		return err
	})
	if err == nil {
		p.x, p.y = x, y
	}
	return err
}

func buttonsMask(b string) int64 {
	switch b {
	case "right":
		return 2
	case "middle":
		return 4
	}
	return 1
}

// Modifier bits as CDP counts them.
const (
	modAlt   = 1
	modCtrl  = 2
	modMeta  = 4
	modShift = 8
)

// ModifierMask converts modifier names to CDP's bit field.
func ModifierMask(names []string) (int64, error) {
	var m int64
	for _, n := range names {
		switch strings.ToLower(n) {
		case "alt", "option":
			m |= modAlt
		case "control", "ctrl":
			m |= modCtrl
		case "meta", "cmd", "command":
			m |= modMeta
		case "shift":
			m |= modShift
		default:
			return 0, fmt.Errorf("unknown modifier %q (use Control, Shift, Alt or Meta)", n)
		}
	}
	return m, nil
}

// namedKeys maps key names (Enter, ArrowDown, ...) to chromedp's key table.
var namedKeys = func() map[string]*kb.Key {
	m := map[string]*kb.Key{}
	for _, k := range kb.Keys {
		if len([]rune(k.Key)) > 1 {
			m[k.Key] = k
		}
	}
	m["Space"] = kb.Keys[' ']
	return m
}()

// KeyFor resolves a key name or a single character.
func KeyFor(name string) (*kb.Key, error) {
	if k, ok := namedKeys[name]; ok {
		return k, nil
	}
	if r := []rune(name); len(r) == 1 {
		if k, ok := kb.Keys[r[0]]; ok {
			return k, nil
		}
		return &kb.Key{Key: name, Text: name, Unmodified: name, Print: true}, nil
	}
	return nil, fmt.Errorf("unknown key %q", name)
}

// Keyboard sends real key events to one tab.
type Keyboard struct {
	j   *Journal
	tab string
}

// TypeText types text one key at a time, delay apart. When secret is true
// the receipts record "•" instead of the characters.
func (k *Keyboard) TypeText(ctx context.Context, text string, delay time.Duration, secret bool) error {
	for i, r := range text {
		if i > 0 && delay > 0 {
			select {
			case <-ctx.Done():
				return undispatched(context.Cause(ctx))
			case <-time.After(delay):
			}
		}
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

// Press sends a chord like "Control+A" or a single key like "Enter".
func (k *Keyboard) Press(ctx context.Context, chord string) error {
	parts := strings.Split(chord, "+")
	if chord == "+" {
		parts = []string{"+"}
	}
	keyName := parts[len(parts)-1]
	mods, err := ModifierMask(parts[:len(parts)-1])
	if err != nil {
		return undispatched(err)
	}
	key, err := KeyFor(keyName)
	if err != nil {
		return undispatched(err)
	}
	// Hold modifiers down, press the key, release in reverse.
	var held []*kb.Key
	for _, m := range parts[:len(parts)-1] {
		mk, err := KeyFor(modKeyName(m))
		if err != nil {
			return undispatched(err)
		}
		held = append(held, mk)
	}
	var cur int64
	for i, mk := range held {
		cur |= mustMask(parts[i])
		if err := k.key(ctx, &input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeRawKeyDown, Key: mk.Key, Code: mk.Code, WindowsVirtualKeyCode: mk.Windows, NativeVirtualKeyCode: mk.Native, Modifiers: cur}, mk.Key); err != nil {
			return err
		}
	}
	down := &input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyDown, Key: key.Key, Code: key.Code, WindowsVirtualKeyCode: key.Windows, NativeVirtualKeyCode: key.Native, Modifiers: mods}
	if key.Print && mods&^modShift == 0 {
		down.Text, down.UnmodifiedText = key.Text, key.Unmodified
	} else if !key.Print {
		down.Type = input.DispatchKeyEventTypeRawKeyDown
		if key.Text != "" && mods == 0 { // Enter sends "\r" as text
			down.Type, down.Text, down.UnmodifiedText = input.DispatchKeyEventTypeKeyDown, key.Text, key.Unmodified
		}
	}
	if err := k.key(ctx, down, chord); err != nil {
		return err
	}
	up := &input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyUp, Key: key.Key, Code: key.Code, WindowsVirtualKeyCode: key.Windows, NativeVirtualKeyCode: key.Native, Modifiers: mods}
	if err := k.key(ctx, up, chord); err != nil {
		return err
	}
	for i := len(held) - 1; i >= 0; i-- {
		cur &^= mustMask(parts[i])
		mk := held[i]
		if err := k.key(ctx, &input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyUp, Key: mk.Key, Code: mk.Code, WindowsVirtualKeyCode: mk.Windows, NativeVirtualKeyCode: mk.Native, Modifiers: cur}, mk.Key); err != nil {
			return err
		}
	}
	return nil
}

func modKeyName(m string) string {
	switch strings.ToLower(m) {
	case "ctrl", "control":
		return "Control"
	case "cmd", "command", "meta":
		return "Meta"
	case "option", "alt":
		return "Alt"
	case "shift":
		return "Shift"
	}
	return m
}

func mustMask(name string) int64 {
	m, _ := ModifierMask([]string{name})
	return m
}

func (k *Keyboard) key(ctx context.Context, ev *input.DispatchKeyEventParams, name string) error {
	r := timeline.Receipt{Kind: timeline.InputKey, Tab: k.tab, Key: name, Type: string(ev.Type)}
	return k.j.send(r, func() error {
		_, err := chromedp.Call(ctx, input.DispatchKeyEvent, *ev)
		return err
	})
}
