package timeline

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func pageJournal(t *testing.T, recs ...any) []byte {
	t.Helper()
	var b bytes.Buffer
	line := func(kind string, v any) {
		raw, _ := json.Marshal(v)
		out, _ := json.Marshal(journalLine{Kind: kind, V: raw})
		b.Write(append(out, '\n'))
	}
	line(JournalRun, JournalHeader{Name: "page", Tool: "clapper test"})
	for i := 0; i+1 < len(recs); i += 2 {
		line(recs[i].(string), recs[i+1])
	}
	return b.Bytes()
}

// A request journaled again as it changes comes back as it last was; a
// lost record leaves no hole; an index past the bound is refused with a
// note; the counts are the largest journaled; the end covers the last
// page event.
func TestReplayPageLog(t *testing.T) {
	b := pageJournal(t,
		JournalPage, JournalPageEvent{I: 0, PageEvent: PageEvent{Kind: PageConsole, Level: "error", Text: "boom", At: 10}},
		JournalPage, JournalPageEvent{I: 1, PageEvent: PageEvent{Kind: PageRequest, URL: "http://x/", At: 20}},
		JournalPageCounts, PageCounts{Truncated: 1},
		JournalPage, JournalPageEvent{I: 1, PageEvent: PageEvent{Kind: PageRequest, URL: "http://x/", At: 20, End: 900, Status: 404}},
		JournalPage, JournalPageEvent{I: 3, PageEvent: PageEvent{Kind: PageException, Text: "late", At: 50}}, // 2 was lost
		JournalPage, JournalPageEvent{I: 4, PageEvent: PageEvent{Kind: PageRequest, URL: "http://x/slow", At: 15, End: 70}}, // a late request, journaled when it ended
		JournalPage, JournalPageEvent{I: MaxPageEvents, PageEvent: PageEvent{Kind: PageConsole, At: 60}},
		JournalPageCounts, PageCounts{Dropped: 4, Truncated: 1},
		JournalPageCounts, PageCounts{Dropped: 2},
	)
	tl, err := replay(b)
	if err != nil {
		t.Fatal(err)
	}
	ev := tl.Page.Events
	if len(ev) != 4 || ev[0].Text != "boom" || ev[1].URL != "http://x/slow" || ev[2].Status != 404 || ev[2].End != 900 || ev[3].Text != "late" {
		t.Errorf("events %+v, want them in time order", ev)
	}
	if tl.Page.Dropped != 4 || tl.Page.Truncated != 1 {
		t.Errorf("counts %d dropped, %d truncated", tl.Page.Dropped, tl.Page.Truncated)
	}
	if tl.End != 900 {
		t.Errorf("end %v, want the request's end", tl.End)
	}
	notes := strings.Join(tl.Recovered.Notes, "\n")
	if !strings.Contains(notes, "(page) is unreadable") {
		t.Errorf("the out-of-bounds record has no note: %s", notes)
	}
	// A journal with no page record recovers no page log (as before).
	if tl, _ := replay(pageJournal(t)); tl.Page != nil {
		t.Errorf("page log %+v from a journal without one", tl.Page)
	}
	// Cut anywhere, the log recovers without holes.
	for k := bytes.IndexByte(b, '\n') + 1; k <= len(b); k++ {
		tl, err := replay(b[:k])
		if err != nil {
			t.Fatalf("cut at %d: %v", k, err)
		}
		if tl.Page == nil {
			continue
		}
		for _, e := range tl.Page.Events {
			if e.Kind == "" {
				t.Fatalf("cut at %d: a hole in %+v", k, tl.Page.Events)
			}
		}
	}
}
