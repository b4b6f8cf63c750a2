package session

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	"github.com/clapper-dev/clapper/timeline"
)

// pageLog records what a run's pages say (console messages, uncaught
// errors, network requests) on the take clock, bounded, with secrets
// masked. Its listeners run on the tabs' read loops: they only record.
type pageLog struct {
	mu   sync.Mutex
	now  func() timeline.Time
	mask func(string) string
	log  timeline.PageLog
	// reqs maps a tab's request to its event, while it may still change.
	reqs map[string]int
	// docs counts each tab's main-frame documents.
	docs map[string]int
	// jr, when set, is the take's journal: each event is written there as
	// it is kept or changes, so a killed run's take keeps what the pages
	// said (pagelog_journal.go).
	jr *timeline.Journal
	// counted is what the journal last heard of the counts, and when.
	counted   timeline.PageCounts
	countedAt timeline.Time
	// routine counts the routine events kept (see room).
	routine int
	// late holds the requests sent once the routine budget was full, until
	// they end: one that fails or gets an HTTP error is then kept as a bad
	// event, the others are counted as dropped. At most maxLate at a time.
	late map[string]timeline.PageEvent
}

// maxLate bounds the requests in flight held past the routine budget.
const maxLate = 1000

func newPageLog(now func() timeline.Time, mask func(string) string) *pageLog {
	return &pageLog{now: now, mask: mask, reqs: map[string]int{}, docs: map[string]int{}, late: map[string]timeline.PageEvent{}, log: timeline.PageLog{Events: []timeline.PageEvent{}}}
}

// room reports whether an event may be kept: a bad one while the log is
// not full, a routine one while the routine budget is not spent either.
func (p *pageLog) room(bad bool) bool {
	if len(p.log.Events) >= timeline.MaxPageEvents {
		return false
	}
	return bad || p.routine < timeline.MaxRoutinePageEvents
}

// drop counts an event not kept, by kind.
func (p *pageLog) drop(kind string) {
	p.log.Dropped++
	if p.log.DroppedByKind == nil {
		p.log.DroppedByKind = map[string]int64{}
	}
	p.log.DroppedByKind[kind]++
	p.journalCounts(false)
}

// settle keeps a late request that ended badly, and counts one that did
// not as dropped.
func (p *pageLog) settle(e timeline.PageEvent) {
	if e.Bad() && p.room(true) {
		p.add(e)
		return
	}
	p.drop(timeline.PageRequest)
}

// listener returns the CDP listener of tab's events.
func (p *pageLog) listener(tab string) func(ev any) {
	return func(ev any) { p.observe(tab, ev) }
}

// text masks and bounds a text from the page.
func (p *pageLog) text(s string) string {
	s = p.mask(s)
	if len(s) > timeline.MaxPageText {
		p.log.Truncated++
		cut := timeline.MaxPageText
		for cut > 0 && (s[cut]&0xC0) == 0x80 { // not inside a UTF-8 sequence
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// full counts an event of kind that would not be kept, before any work is
// spent on it.
func (p *pageLog) full(kind string, bad bool) bool {
	if !p.room(bad) {
		p.drop(kind)
		return true
	}
	if !bad {
		p.routine++
	}
	return false
}

// add keeps an event (the caller checked full) and returns its index.
func (p *pageLog) add(e timeline.PageEvent) int {
	p.log.Events = append(p.log.Events, e)
	i := len(p.log.Events) - 1
	p.journalEvent(i)
	return i
}

func (p *pageLog) observe(tab string, ev any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	base := timeline.PageEvent{Tab: tab, Document: p.docs[tab]}
	switch ev := ev.(type) {
	case *page.EventFrameNavigated:
		if ev.Frame != nil && ev.Frame.ParentID == "" {
			p.docs[tab]++
		}
	case *runtime.EventConsoleAPICalled:
		level := consoleLevel(string(ev.Type))
		if p.full(timeline.PageConsole, level == "error") {
			return
		}
		e := base
		e.Kind, e.At, e.Level = timeline.PageConsole, p.now(), level
		parts := make([]string, 0, len(ev.Args))
		for _, a := range ev.Args {
			parts = append(parts, remoteText(a))
		}
		e.Text = p.text(strings.Join(parts, " "))
		e.Source, e.Stack = p.stack(ev.StackTrace, e.Level == "error" || e.Level == "warning")
		p.add(e)
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		if d == nil || p.full(timeline.PageException, true) {
			return
		}
		e := base
		e.Kind, e.At, e.Level = timeline.PageException, p.now(), "error"
		msg := d.Text
		if d.Exception != nil && d.Exception.Description != "" {
			// An Error's description is its message and stack; keep the
			// message here and the stack below.
			first, _, _ := strings.Cut(d.Exception.Description, "\n")
			msg = strings.TrimSpace(strings.TrimPrefix(msg, "Uncaught") + " " + first)
		}
		e.Text = p.text(strings.TrimSpace(msg))
		e.Source, e.Stack = p.stack(d.StackTrace, true)
		if e.Source == "" && d.URL != "" {
			e.Source = p.text(fmt.Sprintf("%s:%d:%d", d.URL, d.LineNumber+1, d.ColumnNumber+1))
		}
		p.add(e)
	case *network.EventRequestWillBeSent:
		if ev.Request == nil || strings.HasPrefix(ev.Request.URL, "data:") || browsersOwn(ev) {
			return
		}
		key := tab + "/" + string(ev.RequestID)
		if i, ok := p.reqs[key]; ok && ev.RedirectResponse != nil {
			if i >= 0 {
				p.log.Events[i].Status, p.log.Events[i].End = int(ev.RedirectResponse.Status), p.now()
				p.journalEvent(i)
			}
		}
		if e, ok := p.late[key]; ok && ev.RedirectResponse != nil {
			e.Status, e.End = int(ev.RedirectResponse.Status), p.now()
			delete(p.late, key)
			p.settle(e)
		}
		delete(p.reqs, key)
		e := base
		e.Kind, e.Method, e.Type = timeline.PageRequest, ev.Request.Method, string(ev.Type)
		if !p.room(false) {
			// Past the routine budget: held until it ends, kept only if
			// it ends badly.
			if len(p.late) >= maxLate {
				p.drop(timeline.PageRequest)
				return
			}
			e.At, e.URL = p.now(), p.text(ev.Request.URL)
			p.late[key] = e
			return
		}
		p.routine++
		e.At, e.URL = p.now(), p.text(ev.Request.URL)
		p.reqs[key] = p.add(e)
	case *network.EventResponseReceived:
		key := tab + "/" + string(ev.RequestID)
		if i, ok := p.reqs[key]; ok && i >= 0 && ev.Response != nil {
			p.log.Events[i].Status = int(ev.Response.Status)
			p.journalEvent(i)
		}
		if e, ok := p.late[key]; ok && ev.Response != nil {
			e.Status = int(ev.Response.Status)
			p.late[key] = e
		}
	case *network.EventLoadingFinished:
		key := tab + "/" + string(ev.RequestID)
		if e, ok := p.late[key]; ok {
			e.End, e.Bytes = p.now(), int64(ev.EncodedDataLength)
			delete(p.late, key)
			p.settle(e)
		}
		if i, ok := p.reqs[key]; ok {
			if i >= 0 {
				p.log.Events[i].End, p.log.Events[i].Bytes = p.now(), int64(ev.EncodedDataLength)
				p.journalEvent(i)
			}
			delete(p.reqs, key)
		}
	case *network.EventLoadingFailed:
		key := tab + "/" + string(ev.RequestID)
		why := ev.ErrorText
		if ev.Canceled {
			why = "canceled"
		} else if ev.BlockedReason != "" {
			why += " (blocked: " + string(ev.BlockedReason) + ")"
		}
		if e, ok := p.late[key]; ok {
			e.End, e.Failed = p.now(), p.text(why)
			delete(p.late, key)
			p.settle(e)
		}
		if i, ok := p.reqs[key]; ok {
			if i >= 0 {
				p.log.Events[i].End, p.log.Events[i].Failed = p.now(), p.text(why)
				p.journalEvent(i)
			}
			delete(p.reqs, key)
		}
	}
}

// stack returns the top frame as "url:line:col" and, when wanted, the
// stack one frame a line (at most 20 frames).
func (p *pageLog) stack(st *runtime.StackTrace, full bool) (string, string) {
	if st == nil || len(st.CallFrames) == 0 {
		return "", ""
	}
	loc := func(f *runtime.CallFrame) string {
		name := f.FunctionName
		if name == "" {
			name = "(anonymous)"
		}
		return fmt.Sprintf("%s %s:%d:%d", name, f.URL, f.LineNumber+1, f.ColumnNumber+1)
	}
	top := st.CallFrames[0]
	source := p.text(fmt.Sprintf("%s:%d:%d", top.URL, top.LineNumber+1, top.ColumnNumber+1))
	if !full {
		return source, ""
	}
	lines := []string{}
	for i, f := range st.CallFrames {
		if i == 20 {
			lines = append(lines, fmt.Sprintf("… %d more frames", len(st.CallFrames)-20))
			break
		}
		lines = append(lines, loc(f))
	}
	return source, p.text(strings.Join(lines, "\n"))
}

// browsersOwn reports a request the browser makes by itself, not the
// page: the favicon it fetches for the tab strip. Kept, its 404 would be
// the first "error" of nearly every take.
func browsersOwn(ev *network.EventRequestWillBeSent) bool {
	if ev.Type != network.ResourceTypeOther {
		return false
	}
	u, err := url.Parse(ev.Request.URL)
	return err == nil && u.Path == "/favicon.ico"
}

// consoleLevel maps a console call to its level.
func consoleLevel(t string) string {
	switch t {
	case "error", "assert":
		return "error"
	case "warning":
		return "warning"
	case "debug":
		return "debug"
	case "info":
		return "info"
	}
	return "log"
}

// remoteText is how a console argument reads: a string as itself, another
// value as JSON, an object by its description.
func remoteText(o *runtime.RemoteObject) string {
	if o == nil {
		return ""
	}
	if len(o.Value) > 0 {
		var s string
		if json.Unmarshal(o.Value, &s) == nil {
			return s
		}
		return string(o.Value)
	}
	if o.UnserializableValue != "" {
		return string(o.UnserializableValue)
	}
	if o.Description != "" {
		return o.Description
	}
	return string(o.Type)
}

// take returns the log for the timeline; requests still in flight stay
// without an end.
func (p *pageLog) take() *timeline.PageLog {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.log
	l.Events = append([]timeline.PageEvent(nil), p.log.Events...)
	// A late request is added when it ends: put the events back in time
	// order. Late requests still in flight are not kept.
	slices.SortStableFunc(l.Events, func(a, b timeline.PageEvent) int { return cmp.Compare(a.At, b.At) })
	if n := len(p.late); n > 0 {
		l.Dropped += int64(n)
		l.DroppedByKind = maps.Clone(l.DroppedByKind)
		if l.DroppedByKind == nil {
			l.DroppedByKind = map[string]int64{}
		}
		l.DroppedByKind[timeline.PageRequest] += int64(n)
	} else {
		l.DroppedByKind = maps.Clone(l.DroppedByKind)
	}
	return &l
}
