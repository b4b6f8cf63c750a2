package scripts

import (
	"fmt"
	"time"
	"unicode/utf8"
)

// DefaultScroll is how long a scroll takes when the step does not say.
const DefaultScroll = 600 * time.Millisecond

// KeyDelay is the time between a typing step's keys: its own delay, else
// the script's default.
func (a Type) KeyDelay(d Defaults) time.Duration {
	if a.Delay > 0 {
		return a.Delay
	}
	return d.TypeDelay
}

// TypingTime is how long typing text takes by itself, delay between keys:
// from the first key to the last. Pure.
func TypingTime(text string, delay time.Duration) time.Duration {
	return time.Duration(max(utf8.RuneCountInString(text)-1, 0)) * delay
}

// Length is how long a scroll step takes: its own duration, else
// DefaultScroll.
func (a Scroll) Length() time.Duration {
	if a.Duration > 0 {
		return a.Duration
	}
	return DefaultScroll
}

// OwnTime is how long a step takes by what it says, whatever the page
// does: a pause's length, a handoff's own timeout, the time between a
// typing step's first key and its last, a scroll's duration. A step's
// default deadline runs from its end, so the default timeout bounds the
// wait for the page and never cuts short what the script asked for. Pure.
func OwnTime(a Action, d Defaults) time.Duration {
	switch a := a.(type) {
	case Pause:
		return a.Duration
	case Handoff:
		return a.Timeout
	case Type:
		return TypingTime(a.Text, a.KeyDelay(d))
	case Scroll:
		return a.Length()
	}
	return 0
}

// ownTimeSaid says in words what makes a step's own time, for an error;
// the keys of a text holding a secret are not counted (that would tell
// the secret's length). Pure.
func ownTimeSaid(a Action, d Defaults, secret func(string) bool) string {
	switch a := a.(type) {
	case Pause:
		return "the pause"
	case Type:
		if secret(a.Text) {
			return fmt.Sprintf("its keys, %v apart", a.KeyDelay(d))
		}
		return fmt.Sprintf("its %d keys, %v apart", utf8.RuneCountInString(a.Text), a.KeyDelay(d))
	case Scroll:
		return "the scroll's duration"
	}
	return ""
}

// checkTimeouts refuses a timeout written on a step (or on the run or
// repeat that holds it) that is not longer than what the step takes by
// itself: a pause, the keys of a typing step, a scroll by an amount. That
// step could never pass. A handoff's own timeout is a longest wait, not a
// length, so a shorter step timeout only shortens it; a scroll to an
// element, a point or an edge may have nothing to scroll. secret says
// whether a text holds a secret's value.
func checkTimeouts(d *decoder, items []item, df Defaults, secret func(string) bool) {
	for _, it := range items {
		st := it.step
		if st.Timeout <= 0 {
			continue
		}
		switch a := st.Action.(type) {
		case Handoff:
			continue
		case Scroll:
			if a.By == nil {
				continue
			}
		}
		own := OwnTime(st.Action, df)
		if own <= 0 || st.Timeout > own {
			continue
		}
		what := fmt.Sprintf("this %s", st.Kind)
		if it.outerTimeout {
			what = fmt.Sprintf("the %s at %s, which it applies to,", st.Kind, st.Pos)
		}
		took := own.String()
		if a, ok := st.Action.(Type); ok && secret(a.Text) {
			took = "time" // its length would tell the secret's
		}
		d.errorf(it.timeoutAt, "timeout %v is not longer than the %s %s takes by itself (%s), so the step could never pass: make it longer, or leave it out (the default timeout counts from the end of the step's own time)",
			st.Timeout, took, what, ownTimeSaid(st.Action, df, secret))
	}
}
