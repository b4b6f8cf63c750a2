package compositor

import (
	"sort"

	"github.com/clapper-dev/clapper/timeline"
)

// filming says which tab the video shows at each moment of a take: the
// tab named by the last document boundary at or before it. A boundary
// that names another tab than the one before it is a change of filmed tab
// (a film step, or the steps moving to another tab): the video cuts there,
// from the last frame of one tab to the first of the next. Takes whose
// boundaries name no tab were filmed in Capture.Tab ("" when several tabs
// were filmed and the take does not say when).
type filming struct {
	at   []timeline.Time
	tabs []string
	tab  string // before the first boundary naming a tab
}

func newFilming(tl *timeline.Timeline) filming {
	f := filming{tab: tl.Capture.Tab}
	bs := append([]timeline.Boundary(nil), tl.Boundaries...)
	sort.SliceStable(bs, func(i, j int) bool { return bs[i].At < bs[j].At })
	for _, b := range bs {
		if b.Tab != "" {
			f.at, f.tabs = append(f.at, b.At), append(f.tabs, b.Tab)
		}
	}
	return f
}

// tabAt is the tab filmed at t.
func (f filming) tabAt(t timeline.Time) string {
	i := sort.Search(len(f.at), func(i int) bool { return f.at[i] > t })
	if i == 0 {
		if len(f.tabs) > 0 && f.tab == "" {
			return f.tabs[0] // the first capture starts with the take
		}
		return f.tab
	}
	return f.tabs[i-1]
}

// filmedReceipts keeps the input receipts sent to the tab filmed when
// they were sent (and those naming no tab): the cursor and the keys drawn
// are those of the tab the video shows, never a scout's while the stage
// is filmed.
func filmedReceipts(tl *timeline.Timeline) []timeline.Receipt {
	f := newFilming(tl)
	out := make([]timeline.Receipt, 0, len(tl.Receipts))
	for _, r := range tl.Receipts {
		if tab := f.tabAt(r.Sent); r.Tab == "" || tab == "" || r.Tab == tab {
			out = append(out, r)
		}
	}
	return out
}
