package session

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"

	"github.com/clapper-dev/clapper/timeline"
)

// journaledPageLog is a page log writing to a take's journal in dir, as a
// run's does, after the run's first record.
func journaledPageLog(t *testing.T, dir string) (*pageLog, *timeline.Journal) {
	t.Helper()
	p := testPageLog()
	// The test's clock is the log's alone; the journal's flusher gets its own.
	jr, err := timeline.CreateJournal(dir, func() timeline.Time { return 0 })
	if err != nil {
		t.Fatal(err)
	}
	jr.Append(timeline.JournalRun, timeline.JournalHeader{Name: "page", Tool: "clapper test"})
	p.jr = jr
	return p, jr
}

// What the pages said survives a run that never wrote its timeline: the
// recovered take's page log is the one the run held, requests as they
// last changed (status, end, size, failure), masked as it was.
func TestPageLogJournaled(t *testing.T) {
	dir := t.TempDir()
	p, jr := journaledPageLog(t, dir)
	l := p.listener("main")
	l(&runtime.EventConsoleAPICalled{Type: "error", Args: []*runtime.RemoteObject{{Type: "string", Value: []byte(`"token hunter22"`)}}})
	l(&network.EventRequestWillBeSent{RequestID: "1", Request: &network.Request{Method: "POST", URL: "http://x/login?p=hunter22"}, Type: "Fetch"})
	l(&network.EventRequestWillBeSent{RequestID: "1", Request: &network.Request{Method: "GET", URL: "http://x/next"}, RedirectResponse: &network.Response{Status: 302}})
	l(&network.EventResponseReceived{RequestID: "1", Response: &network.Response{Status: 500}})
	l(&network.EventLoadingFinished{RequestID: "1", EncodedDataLength: 1234})
	l(&network.EventRequestWillBeSent{RequestID: "2", Request: &network.Request{Method: "GET", URL: "http://x/gone"}})
	l(&network.EventLoadingFailed{RequestID: "2", ErrorText: "net::ERR_CONNECTION_REFUSED"})
	l(&runtime.EventExceptionThrown{ExceptionDetails: &runtime.ExceptionDetails{Text: "Uncaught", Exception: &runtime.RemoteObject{Description: "Error: boom"}}})
	l(&network.EventRequestWillBeSent{RequestID: "3", Request: &network.Request{Method: "GET", URL: "http://x/slow"}}) // in flight at the end
	if err := jr.Close(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, timeline.JournalFile))
	if bytes.Contains(b, []byte("hunter22")) {
		t.Error("the journal holds a secret")
	}
	tl, err := timeline.Recover(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := p.take()
	if tl.Page == nil || !reflect.DeepEqual(tl.Page.Events, want.Events) {
		t.Fatalf("recovered page log:\n%+v\nwant:\n%+v", tl.Page, want.Events)
	}
	if last := want.Events[len(want.Events)-1]; tl.End < last.At {
		t.Errorf("recovered end %v before the last page event %v", tl.End, last.At)
	}
}

// A page flooding the console writes at most MaxRoutinePageEvents routine
// events to the journal, and the drops as a count, not as one record each.
func TestPageLogJournalBounded(t *testing.T) {
	dir := t.TempDir()
	p, jr := journaledPageLog(t, dir)
	l := p.listener("main")
	long := strings.Repeat("é", timeline.MaxPageText)
	const extra = 3000
	for i := 0; i < timeline.MaxPageEvents+extra; i++ {
		l(&runtime.EventConsoleAPICalled{Type: "log", Args: []*runtime.RemoteObject{{Type: "string", Value: []byte(`"` + long + `"`)}}})
	}
	if err := jr.Close(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, timeline.JournalFile))
	if n := bytes.Count(b, []byte(`"k":"page"`)); n != timeline.MaxRoutinePageEvents {
		t.Errorf("%d page records, want %d", n, timeline.MaxRoutinePageEvents)
	}
	// The test clock moves 10ns a read: all the drops fall in one second.
	if n := bytes.Count(b, []byte(`"k":"page_counts"`)); n > timeline.MaxPageEvents+1 {
		t.Errorf("%d count records for %d drops", n, extra)
	}
	tl, err := timeline.Recover(dir)
	if err != nil {
		t.Fatal(err)
	}
	dropped := int64(timeline.MaxPageEvents + extra - timeline.MaxRoutinePageEvents)
	if len(tl.Page.Events) != timeline.MaxRoutinePageEvents || tl.Page.Truncated != timeline.MaxRoutinePageEvents || tl.Page.Dropped < 1 || tl.Page.Dropped > dropped {
		t.Errorf("recovered %d events, %d truncated, %d dropped", len(tl.Page.Events), tl.Page.Truncated, tl.Page.Dropped)
	}
}
