package recorder

import (
	"errors"
	"testing"

	"github.com/clapper-dev/clapper/timeline"
)

func TestJoin(t *testing.T) {
	a := Result{Capture: timeline.Capture{Tab: "main", Started: 1, Ended: 10, EndReason: "stopped",
		Frames: timeline.Accounting{Received: 5, Delivered: 4, Late: 1, Upstream: "unknown"}, Restarts: 2},
		Boundaries: []timeline.Boundary{{Document: 0}, {Document: 1}}, NextSeq: 5, NextDocument: 2, Acks: 3}
	b := Result{Capture: timeline.Capture{Tab: "side", Started: 11, Ended: 20, EndReason: "renderer crashed",
		Frames: timeline.Accounting{Received: 7, Delivered: 5, Overflow: 1, Rejected: 1, Upstream: "unknown"}, Restarts: 3},
		Boundaries: []timeline.Boundary{{Document: 2}}, NextSeq: 12, NextDocument: 3, Acks: 4, Err: errors.New("renderer crashed")}
	j := Join(a, b)
	f := j.Capture.Frames
	if f.Received != 12 || f.Delivered != 9 || f.Late != 1 || f.Overflow != 1 || f.Rejected != 1 || !f.Balanced() || f.Upstream != "unknown" {
		t.Errorf("accounting %+v", f)
	}
	if j.Capture.Started != 1 || j.Capture.Ended != 20 || j.Capture.Restarts != 5 || j.Capture.Tab != "" || j.Capture.EndReason != "renderer crashed" || j.Err == nil {
		t.Errorf("capture %+v, err %v", j.Capture, j.Err)
	}
	if len(j.Boundaries) != 3 || j.Boundaries[2].Document != 2 || j.NextSeq != 12 || j.NextDocument != 3 || j.Acks != 7 {
		t.Errorf("joined %+v", j)
	}
	if len(a.Boundaries) != 2 {
		t.Error("Join changed its input")
	}
	if one := Join(a); one.Capture.Tab != "main" || one.Capture.Frames != a.Capture.Frames {
		t.Errorf("one result: %+v", one.Capture)
	}
	if z := Join(); z.Boundaries != nil || z.Capture.Frames.Received != 0 {
		t.Error("no results")
	}
	cast := Result{Capture: timeline.Capture{Pictures: timeline.PicturesScreencast}}
	fell := Result{Capture: timeline.Capture{Pictures: timeline.PicturesScreenshot, Missed: 2}}
	if j := Join(cast, cast); j.Capture.Pictures != timeline.PicturesScreencast || j.Capture.Missed != 0 {
		t.Errorf("two screencast captures joined: %q, %d missed", j.Capture.Pictures, j.Capture.Missed)
	}
	if j := Join(cast, fell, cast); j.Capture.Pictures != timeline.PicturesScreenshot || j.Capture.Missed != 2 {
		t.Errorf("a capture that fell back to screenshots joined: %q, %d missed", j.Capture.Pictures, j.Capture.Missed)
	}
}
