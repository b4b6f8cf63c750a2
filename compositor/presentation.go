package compositor

import (
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/clapper-dev/clapper/timeline"
)

// This file reads the presentation the timeline asks for (cuts, captions,
// chapters, cursor visibility, keys, addresses) into plain data. Pure.

// Step kinds with a presentation meaning.
const (
	kindCaption = "caption"
	kindChapter = "chapter"
	kindCursor  = "cursor"
	kindZoom    = "zoom"
)

// defaultCaption is how long a caption without a duration stays up.
const defaultCaption = 3 * time.Second

// hiddenCuts returns the intervals of hidden steps, and of steps whose
// kind is cut (a human handoff), cut from the video. Such a step still
// running when the take was read (a killed run's, recovered: its end is
// only the journal's last record, up to a flush behind its frames) is cut
// to the take's end.
func hiddenCuts(tl *timeline.Timeline) []Segment {
	var cs []Segment
	for _, st := range tl.Steps {
		if !st.Hidden && !st.Traits.Cut {
			continue
		}
		end := st.End
		if tl.Recovered != nil && slices.Contains(tl.Recovered.Open, st.Index) {
			end = max(end, tl.End, st.Start+1)
		}
		if end > st.Start {
			cs = append(cs, Segment{Start: st.Start, End: end})
		}
	}
	return cs
}

// longWaits returns the parts of long waiting steps to play faster.
func longWaits(tl *timeline.Timeline, su SpeedUpSettings) []Segment {
	if !su.Waits {
		return nil
	}
	over, keep, speed := su.Over, su.Keep, su.Speed
	if over <= 0 {
		over = 2 * time.Second
	}
	if keep <= 0 {
		keep = 500 * time.Millisecond
	}
	if speed <= 1 {
		speed = 4
	}
	var out []Segment
	for _, st := range tl.Steps {
		d := time.Duration(st.End - st.Start)
		if !st.Traits.Waits || d <= over || d <= 2*keep {
			continue
		}
		out = append(out, Segment{Start: st.Start + timeline.Time(keep), End: st.End - timeline.Time(keep), Speed: speed})
	}
	return out
}

// Caption is text shown over [Start, End) of the take clock.
type Caption struct {
	Start, End timeline.Time
	Text       string
}

// captions returns the caption steps' text (and, with labels, each labelled
// step's label while it runs), in start order.
func captions(tl *timeline.Timeline, labels bool) []Caption {
	var cs []Caption
	for _, st := range tl.Steps {
		switch {
		case st.Kind == kindCaption && strings.TrimSpace(st.Text) != "":
			d := st.Duration
			if d <= 0 {
				d = defaultCaption
			}
			cs = append(cs, Caption{st.Start, st.Start + timeline.FromDuration(d), st.Text})
		case labels && st.Label != "" && st.Kind != kindCaption && st.Kind != kindChapter && !st.Hidden:
			end := st.End
			if min := st.Start + timeline.FromDuration(time.Second); end < min {
				end = min
			}
			cs = append(cs, Caption{st.Start, end, st.Label})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].Start < cs[j].Start })
	return cs
}

// Chapter starts at At on the take clock.
type Chapter struct {
	At    timeline.Time
	Title string
}

func chapters(tl *timeline.Timeline) []Chapter {
	var cs []Chapter
	for _, st := range tl.Steps {
		if st.Kind == kindChapter && strings.TrimSpace(st.Text) != "" {
			cs = append(cs, Chapter{st.Start, st.Text})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].At < cs[j].At })
	return cs
}

// cursorHides returns the intervals from a "cursor: hide" step to the next
// "cursor: show" step (or the end of time).
func cursorHides(tl *timeline.Timeline) []Segment {
	var out []Segment
	steps := append([]timeline.Step(nil), tl.Steps...)
	sort.SliceStable(steps, func(i, j int) bool { return steps[i].Start < steps[j].Start })
	hidden := false
	var from timeline.Time
	for _, st := range steps {
		if st.Kind != kindCursor {
			continue
		}
		switch strings.ToLower(strings.TrimSpace(st.Text)) {
		case "hide":
			if !hidden {
				hidden, from = true, st.Start
			}
		case "show":
			if hidden {
				out = append(out, Segment{Start: from, End: st.Start})
				hidden = false
			}
		}
	}
	if hidden {
		out = append(out, Segment{Start: from, End: timeline.Time(1<<62 - 1)})
	}
	return out
}

// KeyPress is a key shown by the keys overlay.
type KeyPress struct {
	At    timeline.Time
	Label string
}

// keyLabels names keys for people; anything else shows as sent.
var keyLabels = map[string]string{
	"Enter": "⏎", "Backspace": "⌫", "Tab": "⇥", "Escape": "Esc", "ArrowLeft": "←",
	"ArrowRight": "→", "ArrowUp": "↑", "ArrowDown": "↓", " ": "␣", "Delete": "Del",
	"Shift": "Shift", "Control": "Ctrl", "Meta": "Meta", "Alt": "Alt",
}

// keyPresses returns the keyDown receipts of the captured tab as labels. A
// masked secret ("•", or a key the receipt flags) shows as a dot, never as
// its text. A chord shows once, as "Ctrl+K": the modifiers pressed for it
// are not shown on their own.
func keyPresses(tl *timeline.Timeline) []KeyPress {
	var downs []timeline.Receipt
	for _, r := range filmedReceipts(tl) {
		if r.Kind != timeline.InputKey || r.Error != "" {
			continue
		}
		if r.Type != "" && r.Type != "keyDown" && r.Type != "rawKeyDown" && r.Type != "insertText" {
			continue
		}
		if tab := tl.Capture.Tab; tab != "" && r.Tab != "" && r.Tab != tab {
			continue
		}
		downs = append(downs, r)
	}
	var ks []KeyPress
	for i, r := range downs {
		if modifierKeys[r.Key] && chordFollows(downs[i+1:], r.Step) {
			continue // part of the chord that follows
		}
		label := keyLabel(r.Key)
		if label == "" {
			continue
		}
		ks = append(ks, KeyPress{r.Sent, label})
	}
	sort.SliceStable(ks, func(i, j int) bool { return ks[i].At < ks[j].At })
	return ks
}

// chordFollows reports whether, past further modifiers of the same step,
// the next key pressed is a chord.
func chordFollows(rest []timeline.Receipt, step int) bool {
	for _, r := range rest {
		if r.Step != step {
			return false
		}
		if !modifierKeys[r.Key] {
			return strings.Contains(r.Key, "+")
		}
	}
	return false
}

var modifierKeys = map[string]bool{"Shift": true, "Control": true, "Meta": true, "Alt": true}

// keyLabel turns a key or chord name into what the overlay shows.
func keyLabel(key string) string {
	if strings.Contains(key, "•") {
		return "•"
	}
	if l, ok := keyLabels[key]; ok {
		return l
	}
	if len(key) > 1 && strings.Contains(key, "+") {
		parts := strings.Split(key, "+")
		for i, p := range parts {
			if l, ok := keyLabels[p]; ok {
				parts[i] = l
			} else if len([]rune(p)) == 1 {
				parts[i] = strings.ToUpper(p)
			}
		}
		return strings.Join(parts, "+")
	}
	return key
}

// URLSpan says the captured tab showed URL from At on.
type URLSpan struct {
	At  timeline.Time
	URL string
}

// documentURLs returns the committed address of each document, in order; an
// address too long to record shows as a note, never truncated text. With
// host set, addresses of the run's own sample site show under that host.
func documentURLs(tl *timeline.Timeline, host string) []URLSpan {
	var us []URLSpan
	for _, b := range tl.Boundaries {
		u := "(address longer than 8192 characters)"
		if b.URL != nil {
			u = displayURL(*b.URL, tl.Served, host)
		}
		us = append(us, URLSpan{b.At, u})
	}
	sort.SliceStable(us, func(i, j int) bool { return us[i].At < us[j].At })
	return us
}

// displayURL shows an address of the served site (origin served) under
// host instead; other addresses are shown as they are.
func displayURL(u, served, host string) string {
	if host == "" || served == "" || !strings.HasPrefix(u, served) {
		return u
	}
	rest := u[len(served):]
	if rest != "" && rest[0] != '/' && rest[0] != '?' && rest[0] != '#' {
		return u // another port that merely starts with the same digits
	}
	if !strings.Contains(host, "://") {
		host = "https://" + host
	}
	return strings.TrimSuffix(host, "/") + rest
}
