package compositor

import "github.com/clapper-dev/clapper/timeline"

// kindGoto is the step that loads an address.
const kindGoto = "goto"

// blankURL is the document a new tab starts on.
const blankURL = "about:blank"

// leadIn is where the video starts when the take opens on a blank tab that
// shows nothing until the script's first goto: the first frame of the
// document that goto loaded, made once the goto had finished (loaded). A
// frame made between the commit and the load can still be blank (measured
// on the bench page: the first frame after the commit was white, the next
// one, after the load, the page); when no frame follows the load, the
// first one after the commit is used. A take that opens on a real page (a claimed
// tab), or whose script does anything worth showing before its first goto,
// starts at its own start. The take keeps every frame either way.
type leadIn struct {
	// Document is the first document to show, After the time it was
	// committed: a frame received during it but produced before then
	// still shows the blank page.
	Document int
	After    timeline.Time
	// Loaded is when the goto step ended: the page had loaded.
	Loaded timeline.Time
	// Strict: only a frame made after Loaded counts, not one at it. In
	// studio mode a load takes no virtual time, so the frame at the
	// goto's end can be the new document before its first paint (white).
	Strict bool
}

// findLeadIn reads the timeline for a blank lead-in to skip; ok is false
// when the video starts at the take's start. Steps before the first goto
// that show nothing (chapters, hidden steps) do not keep the blank page.
func findLeadIn(tl *timeline.Timeline) (leadIn, bool) {
	if len(tl.Boundaries) == 0 {
		return leadIn{}, false
	}
	b0 := tl.Boundaries[0]
	if b0.URL != nil && *b0.URL != blankURL && *b0.URL != "" {
		return leadIn{}, false
	}
	var first *timeline.Step
	for i := range tl.Steps {
		st := &tl.Steps[i]
		if st.Kind == kindChapter || st.Hidden {
			continue
		}
		first = st
		break
	}
	if first == nil || first.Kind != kindGoto {
		return leadIn{}, false
	}
	for _, b := range tl.Boundaries[1:] {
		if b.Document > b0.Document && b.At >= first.Start {
			return leadIn{Document: b.Document, After: b.At, Loaded: max(b.At, first.End), Strict: tl.Capture.Mode == timeline.CaptureStudio}, true
		}
	}
	return leadIn{}, false
}

// shows reports whether frame fr belongs to the lead-in's document or a
// later one, and was produced after it was committed.
func (li leadIn) shows(fr timeline.Frame) bool {
	return fr.Document >= li.Document && fr.Source >= li.After
}

// loaded reports whether frame fr shows the lead-in's document (or a later
// one) and was made once the goto had finished.
func (li leadIn) loaded(fr timeline.Frame) bool {
	if li.Strict {
		return li.shows(fr) && fr.Source > li.Loaded
	}
	return li.shows(fr) && fr.Source >= li.Loaded
}
