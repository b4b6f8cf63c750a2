package compositor

import (
	"fmt"
	"testing"

	"github.com/clapper-dev/clapper/timeline"
)

// The filmed tab at each moment follows the boundaries that name one; the
// cursor and keys drawn are those of the tab filmed when they were sent.
func TestFilming(t *testing.T) {
	tl := &timeline.Timeline{
		Capture: timeline.Capture{Tab: ""}, // several tabs filmed
		Boundaries: []timeline.Boundary{
			{Document: 0, At: msT(0), Tab: "main"},
			{Document: 1, At: msT(300), Tab: "main"}, // a navigation: no cut
			{Document: 2, At: msT(1000), Tab: "scout"},
			{Document: 3, At: msT(2000), Tab: "main"},
		},
		Receipts: []timeline.Receipt{
			{Kind: timeline.InputMove, Tab: "main", Sent: msT(100)},
			{Kind: timeline.InputMove, Tab: "scout", Sent: msT(500)}, // scout not filmed then
			{Kind: timeline.InputMove, Tab: "scout", Sent: msT(1500)},
			{Kind: timeline.InputMove, Tab: "main", Sent: msT(1600)}, // main not filmed then
			{Kind: timeline.InputMove, Sent: msT(1700)},              // names no tab
			{Kind: timeline.InputKey, Type: "keyDown", Key: "a", Tab: "scout", Sent: msT(2500)},
			{Kind: timeline.InputKey, Type: "keyDown", Key: "b", Tab: "main", Sent: msT(2600)},
		},
	}
	f := newFilming(tl)
	for _, c := range []struct {
		at   int
		want string
	}{{0, "main"}, {299, "main"}, {999, "main"}, {1000, "scout"}, {1999, "scout"}, {2000, "main"}, {9000, "main"}} {
		if got := f.tabAt(msT(c.at)); got != c.want {
			t.Errorf("tab filmed at %d ms: %q, want %q", c.at, got, c.want)
		}
	}
	var sent []int
	for _, r := range filmedReceipts(tl) {
		sent = append(sent, int(r.Sent.Seconds()*1000+0.5))
	}
	if want := []int{100, 1500, 1700, 2600}; fmt.Sprint(sent) != fmt.Sprint(want) {
		t.Errorf("receipts drawn sent at %v ms, want %v", sent, want)
	}
	if ks := keyPresses(tl); len(ks) != 1 || ks[0].At != msT(2600) {
		t.Errorf("keys drawn: %+v, want only main's b", ks)
	}
	// A take that names no tab on its boundaries keeps Capture.Tab.
	old := &timeline.Timeline{Capture: timeline.Capture{Tab: "main"}, Boundaries: []timeline.Boundary{{At: 0}}}
	if got := newFilming(old).tabAt(msT(5)); got != "main" {
		t.Errorf("old take: filmed %q", got)
	}
}

// A handoff's interval (a step whose kind is cut) is cut from the video,
// as a hidden step's is.
func TestHandoffCut(t *testing.T) {
	tl := &timeline.Timeline{Steps: []timeline.Step{
		{Kind: "goto", Start: msT(0), End: msT(100)},
		{Kind: "handoff", Traits: timeline.Traits{Waits: true, Cut: true}, Start: msT(200), End: msT(5200)},
		{Kind: "click", Start: msT(5300), End: msT(5400)},
	}}
	if got := hiddenCuts(tl); len(got) != 1 || got[0] != (Segment{Start: msT(200), End: msT(5200)}) {
		t.Errorf("cuts = %v", got)
	}
}
