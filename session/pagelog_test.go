package session

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	"github.com/clapper-dev/clapper/timeline"
)

func testPageLog() *pageLog {
	var t timeline.Time
	return newPageLog(func() timeline.Time { t += 10; return t }, func(s string) string { return strings.ReplaceAll(s, "hunter22", "•••") })
}

// What the pages say is recorded per tab and document, on the clock, with
// secrets masked: console messages with their level and source, uncaught
// errors with their stack, requests through redirect, response and end or
// failure; data: addresses are left out.
func TestPageLogRecords(t *testing.T) {
	p := testPageLog()
	l := p.listener("main")
	stack := &runtime.StackTrace{CallFrames: []*runtime.CallFrame{{FunctionName: "f", URL: "http://x/a.js", LineNumber: 4, ColumnNumber: 2}}}
	l(&page.EventFrameNavigated{Frame: &cdp.Frame{ID: "1"}})
	l(&runtime.EventConsoleAPICalled{Type: "error", Args: []*runtime.RemoteObject{{Type: "string", Value: []byte(`"token hunter22"`)}, {Type: "number", Value: []byte("42")}, {Type: "object", Description: "Object"}}, StackTrace: stack})
	l(&runtime.EventConsoleAPICalled{Type: "log", Args: []*runtime.RemoteObject{{Type: "string", Value: []byte(`"hi"`)}}})
	l(&runtime.EventExceptionThrown{ExceptionDetails: &runtime.ExceptionDetails{Text: "Uncaught", Exception: &runtime.RemoteObject{Description: "Error: boom\n    at f (a.js:5:3)"}, StackTrace: stack}})
	p.listener("other")(&network.EventRequestWillBeSent{RequestID: "1", Request: &network.Request{Method: "GET", URL: "http://x/other"}})
	l(&network.EventRequestWillBeSent{RequestID: "1", Request: &network.Request{Method: "POST", URL: "http://x/login?p=hunter22"}, Type: "Fetch"})
	l(&network.EventRequestWillBeSent{RequestID: "1", Request: &network.Request{Method: "GET", URL: "http://x/next"}, RedirectResponse: &network.Response{Status: 302}})
	l(&network.EventResponseReceived{RequestID: "1", Response: &network.Response{Status: 500}})
	l(&network.EventLoadingFinished{RequestID: "1", EncodedDataLength: 1234})
	l(&network.EventRequestWillBeSent{RequestID: "2", Request: &network.Request{Method: "GET", URL: "http://x/gone"}})
	l(&network.EventLoadingFailed{RequestID: "2", ErrorText: "net::ERR_CONNECTION_REFUSED"})
	l(&network.EventRequestWillBeSent{RequestID: "3", Request: &network.Request{URL: "data:image/png;base64,AAAA"}})
	l(&network.EventRequestWillBeSent{RequestID: "4", Request: &network.Request{URL: "http://x/favicon.ico"}, Type: network.ResourceTypeOther})
	got := p.take()
	ev := got.Events
	if len(ev) != 7 {
		t.Fatalf("%d events: %+v", len(ev), ev)
	}
	c := ev[0]
	if c.Kind != timeline.PageConsole || c.Level != "error" || c.Text != "token ••• 42 Object" || c.Source != "http://x/a.js:5:3" || c.Document != 1 || c.Tab != "main" || !strings.Contains(c.Stack, "f http://x/a.js:5:3") {
		t.Errorf("console error: %+v", c)
	}
	if ev[1].Level != "log" || ev[1].Stack != "" {
		t.Errorf("console log: %+v", ev[1])
	}
	if x := ev[2]; x.Kind != timeline.PageException || x.Text != "Error: boom" || x.Stack == "" || !x.Bad() {
		t.Errorf("exception: %+v", x)
	}
	if r := ev[3]; r.Tab != "other" || r.Document != 0 {
		t.Errorf("other tab's request: %+v", r)
	}
	if r := ev[4]; r.Method != "POST" || r.URL != "http://x/login?p=•••" || r.Status != 302 || r.End == 0 || r.Type != "Fetch" {
		t.Errorf("redirected request: %+v", r)
	}
	if r := ev[5]; r.URL != "http://x/next" || r.Status != 500 || r.Bytes != 1234 || !r.Bad() || r.End <= r.At {
		t.Errorf("request: %+v", r)
	}
	if r := ev[6]; r.Failed != "net::ERR_CONNECTION_REFUSED" || !r.Bad() {
		t.Errorf("failed request: %+v", r)
	}
	for i := 1; i < len(ev); i++ {
		if ev[i].At < ev[i-1].At {
			t.Errorf("event %d goes back in time", i)
		}
	}
}

// The log is bounded: past MaxPageEvents events are counted, not kept, and
// texts are cut at MaxPageText on a character boundary.
func TestPageLogBounded(t *testing.T) {
	p := testPageLog()
	l := p.listener("main")
	long := strings.Repeat("é", timeline.MaxPageText)
	for i := 0; i < timeline.MaxPageEvents+7; i++ {
		l(&runtime.EventConsoleAPICalled{Type: "log", Args: []*runtime.RemoteObject{{Type: "string", Value: []byte(`"` + long + `"`)}}})
	}
	// A request whose start was dropped is not found later.
	l(&network.EventLoadingFinished{RequestID: "x"})
	got := p.take()
	extra := int64(timeline.MaxPageEvents + 7 - timeline.MaxRoutinePageEvents)
	if len(got.Events) != timeline.MaxRoutinePageEvents || got.Dropped != extra || got.DroppedByKind[timeline.PageConsole] != extra || got.Truncated != timeline.MaxRoutinePageEvents {
		t.Errorf("%d events, %d dropped (%v), %d truncated", len(got.Events), got.Dropped, got.DroppedByKind, got.Truncated)
	}
	txt := got.Events[0].Text
	if len(txt) > timeline.MaxPageText+len("…") || !strings.HasSuffix(txt, "…") || strings.ContainsRune(txt, '\uFFFD') {
		t.Errorf("text of %d bytes: %q…", len(txt), txt[:20])
	}
}

// Routine events cannot crowd out the bad ones: past the routine budget a
// page that polls still has its console error, uncaught error, HTTP error
// and failed request kept, in time order, and what was dropped is counted
// by kind. Bad events too are bounded, by the whole log's size.
func TestPageLogKeepsErrorsPastRoutineEvents(t *testing.T) {
	p := testPageLog()
	l := p.listener("main")
	poll := func(id string) {
		l(&network.EventRequestWillBeSent{RequestID: network.RequestID(id), Request: &network.Request{Method: "GET", URL: "http://x/poll"}})
		l(&network.EventResponseReceived{RequestID: network.RequestID(id), Response: &network.Response{Status: 200}})
		l(&network.EventLoadingFinished{RequestID: network.RequestID(id)})
	}
	for i := range timeline.MaxRoutinePageEvents + 500 {
		poll(fmt.Sprint("p", i))
	}
	l(&runtime.EventConsoleAPICalled{Type: "log", Args: []*runtime.RemoteObject{{Type: "string", Value: []byte(`"routine"`)}}})
	// A request sent past the budget that gets a 500, answered after a
	// console error: kept, and put back in time order.
	l(&network.EventRequestWillBeSent{RequestID: "bad", Request: &network.Request{Method: "POST", URL: "http://x/save"}})
	l(&runtime.EventConsoleAPICalled{Type: "error", Args: []*runtime.RemoteObject{{Type: "string", Value: []byte(`"save failed"`)}}})
	l(&network.EventResponseReceived{RequestID: "bad", Response: &network.Response{Status: 500}})
	l(&network.EventLoadingFinished{RequestID: "bad"})
	l(&runtime.EventExceptionThrown{ExceptionDetails: &runtime.ExceptionDetails{Text: "Uncaught boom"}})
	l(&network.EventRequestWillBeSent{RequestID: "gone", Request: &network.Request{URL: "http://x/gone"}})
	l(&network.EventLoadingFailed{RequestID: "gone", ErrorText: "net::ERR_CONNECTION_REFUSED"})
	l(&network.EventRequestWillBeSent{RequestID: "open", Request: &network.Request{URL: "http://x/stream"}})
	got := p.take()
	if len(got.Events) != timeline.MaxRoutinePageEvents+4 {
		t.Fatalf("%d events kept", len(got.Events))
	}
	tail := got.Events[timeline.MaxRoutinePageEvents:]
	if tail[0].URL != "http://x/save" || tail[0].Status != 500 || tail[1].Text != "save failed" || tail[2].Kind != timeline.PageException || tail[3].Failed == "" {
		t.Errorf("bad events: %+v", tail)
	}
	for i := 1; i < len(got.Events); i++ {
		if got.Events[i].At < got.Events[i-1].At {
			t.Fatalf("event %d goes back in time", i)
		}
	}
	// 500 polls, and the request still open, not kept; one routine log.
	if got.DroppedByKind[timeline.PageRequest] != 501 || got.DroppedByKind[timeline.PageConsole] != 1 || got.Dropped != 502 {
		t.Errorf("dropped %d: %v", got.Dropped, got.DroppedByKind)
	}
	for range timeline.MaxPageEvents {
		l(&runtime.EventConsoleAPICalled{Type: "error", Args: []*runtime.RemoteObject{{Type: "string", Value: []byte(`"again"`)}}})
	}
	got = p.take()
	if len(got.Events) != timeline.MaxPageEvents || got.DroppedByKind[timeline.PageConsole] != 1+int64(timeline.MaxRoutinePageEvents)+4 {
		t.Errorf("%d events, dropped %v", len(got.Events), got.DroppedByKind)
	}
}
