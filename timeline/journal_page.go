package timeline

import (
	"cmp"
	"encoding/json"
	"errors"
	"slices"
)

// Journal records of the page log. A request changes after it is sent
// (status, end, size, failure), so its event is journaled again, whole,
// each time it changes, under the same index; the last one wins.
const (
	JournalPage       = "page"        // JournalPageEvent
	JournalPageCounts = "page_counts" // PageCounts
)

// JournalPageEvent is a page event as it is now, at its index in the
// take's page log.
type JournalPageEvent struct {
	I int `json:"i"`
	PageEvent
}

// PageCounts is what the page log counted and did not keep so far.
type PageCounts struct {
	Dropped   int64 `json:"dropped,omitempty"`
	Truncated int64 `json:"truncated,omitempty"`
}

// replayPage applies a page record to a recovered timeline and returns
// the latest moment it names. Indexes past MaxPageEvents are refused, so
// a damaged journal cannot make the log grow past its bound.
func replayPage(t *Timeline, kind string, v json.RawMessage) (Time, error) {
	if t.Page == nil {
		t.Page = &PageLog{Events: []PageEvent{}}
	}
	if kind == JournalPageCounts {
		var c PageCounts
		if err := json.Unmarshal(v, &c); err != nil {
			return 0, err
		}
		t.Page.Dropped, t.Page.Truncated = max(t.Page.Dropped, c.Dropped), max(t.Page.Truncated, c.Truncated)
		return 0, nil
	}
	var e JournalPageEvent
	if err := json.Unmarshal(v, &e); err != nil {
		return 0, err
	}
	if e.I < 0 || e.I >= MaxPageEvents || e.Kind == "" {
		return 0, errBadPageIndex
	}
	for len(t.Page.Events) <= e.I {
		t.Page.Events = append(t.Page.Events, PageEvent{})
	}
	t.Page.Events[e.I] = e.PageEvent
	return max(e.At, e.End), nil
}

var errBadPageIndex = errors.New("page event out of bounds")

// closePage drops the places of page events whose records were lost
// (an unreadable line), and puts the rest in time order, as a run's own
// log is: a late request is journaled when it ends, after events that
// came later than its start.
func closePage(t *Timeline) {
	if t.Page == nil {
		return
	}
	kept := t.Page.Events[:0]
	for _, e := range t.Page.Events {
		if e.Kind != "" {
			kept = append(kept, e)
		}
	}
	slices.SortStableFunc(kept, func(a, b PageEvent) int { return cmp.Compare(a.At, b.At) })
	t.Page.Events = kept
}
