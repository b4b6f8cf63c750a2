package timeline

// Page event kinds.
const (
	PageConsole   = "console"   // a console message
	PageException = "exception" // an uncaught error in the page
	PageRequest   = "request"   // a network request
	PageDialog    = "dialog"    // an alert, confirm, prompt or beforeunload dialog, and its answer
)

// PageLog is what the pages said while the take was recorded: console
// messages, uncaught errors and network requests (never their bodies), on
// the take clock, with secrets masked. It is bounded: past MaxPageEvents
// events, or texts past MaxPageText bytes, the rest is counted, not kept.
type PageLog struct {
	Events []PageEvent `json:"events"`
	// Dropped counts the events not kept once the log was full; Truncated
	// the texts cut at MaxPageText.
	Dropped   int64 `json:"dropped,omitempty"`
	Truncated int64 `json:"truncated,omitempty"`
	// DroppedByKind splits Dropped by event kind (console, exception,
	// request).
	DroppedByKind map[string]int64 `json:"dropped_by_kind,omitempty"`
}

// Bounds of a take's page log. Routine events (console messages below
// error, requests when sent) may fill at most MaxRoutinePageEvents of the
// MaxPageEvents, so the rest is always left for the bad ones (console
// errors, uncaught errors, failed requests, HTTP error statuses): on a
// page that polls, the errors near a failure are never crowded out.
const (
	MaxPageEvents        = 5000
	MaxRoutinePageEvents = 4000
	MaxPageText          = 2048
)

// PageEvent is one console message, uncaught error or request.
type PageEvent struct {
	Kind string `json:"kind"`
	Tab  string `json:"tab,omitempty"`
	// Document counts the main-frame documents the tab committed before
	// the event (0: its first).
	Document int `json:"document"`
	// At is when it happened on the take clock (a request: when it was
	// sent); End is when a request finished or failed.
	At  Time `json:"at"`
	End Time `json:"end,omitempty"`
	// Level is the console level (log, info, warning, error, debug); an
	// exception is "error".
	Level string `json:"level,omitempty"`
	Text  string `json:"text,omitempty"`
	// Source is where it was said, "url:line:col"; Stack the call stack,
	// one frame a line.
	Source string `json:"source,omitempty"`
	Stack  string `json:"stack,omitempty"`
	// A request's method, address, resource type, HTTP status (0 before
	// a response), encoded bytes received and, when it failed, why.
	Method string `json:"method,omitempty"`
	URL    string `json:"url,omitempty"`
	Type   string `json:"type,omitempty"`
	Status int    `json:"status,omitempty"`
	Bytes  int64  `json:"bytes,omitempty"`
	Failed string `json:"failed,omitempty"`
	// A dialog's type (alert, confirm, prompt, beforeunload; its message
	// is Text) and how it was answered: "accepted", "dismissed", or
	// "accepted: " and the text typed into a prompt.
	Dialog string `json:"dialog,omitempty"`
	Answer string `json:"answer,omitempty"`
}

// Bad reports whether the event is one a reader looks at first: a console
// error, an uncaught error, a failed request or an HTTP error status.
func (e PageEvent) Bad() bool {
	switch e.Kind {
	case PageException:
		return true
	case PageConsole:
		return e.Level == "error"
	case PageRequest:
		return e.Failed != "" || e.Status >= 400
	}
	return false
}

// PageSummary digests a take's page log for inspect: counts, and the bad
// events first (at most MaxSummaryErrors, in time order).
type PageSummary struct {
	Console        int   `json:"console"`
	Exceptions     int   `json:"exceptions"`
	ConsoleErrors  int   `json:"console_errors"`
	Requests       int   `json:"requests"`
	FailedRequests int   `json:"failed_requests"`
	Dialogs        int   `json:"dialogs,omitempty"`
	Dropped        int64 `json:"dropped,omitempty"`
	// DroppedByKind splits Dropped by event kind.
	DroppedByKind map[string]int64 `json:"dropped_by_kind,omitempty"`
	Errors        []PageError      `json:"errors"`
	// DialogList are the dialogs and their answers (at most
	// MaxSummaryErrors, in time order).
	DialogList []PageError `json:"dialog_list,omitempty"`
}

// PageError is a bad page event in a summary, its time in milliseconds
// since the take's start.
type PageError struct {
	AtMs int64 `json:"at_ms"`
	PageEvent
}

// MaxSummaryErrors bounds the bad events a summary lists.
const MaxSummaryErrors = 20

// SummarizePage digests a page log; nil for a take that has none. Pure.
func SummarizePage(l *PageLog, start Time) *PageSummary {
	if l == nil {
		return nil
	}
	s := &PageSummary{Dropped: l.Dropped, DroppedByKind: l.DroppedByKind, Errors: []PageError{}}
	for _, e := range l.Events {
		switch e.Kind {
		case PageConsole:
			s.Console++
			if e.Level == "error" {
				s.ConsoleErrors++
			}
		case PageException:
			s.Exceptions++
		case PageRequest:
			s.Requests++
			if e.Bad() {
				s.FailedRequests++
			}
		case PageDialog:
			s.Dialogs++
			if len(s.DialogList) < MaxSummaryErrors {
				s.DialogList = append(s.DialogList, PageError{AtMs: (e.At - start).Millis(), PageEvent: e})
			}
		}
		if e.Bad() && len(s.Errors) < MaxSummaryErrors {
			s.Errors = append(s.Errors, PageError{AtMs: (e.At - start).Millis(), PageEvent: e})
		}
	}
	return s
}
