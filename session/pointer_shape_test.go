package session

import (
	"strings"
	"testing"

	"github.com/clapper-dev/clapper/timeline"
)

// The cursor's shape along a path from a text field to a button: the
// I-beam while over the field, the arrow between, the hand over the
// button and at the end; a move without a box keeps its shape.
func TestShapeAlong(t *testing.T) {
	field := &timeline.Rect{X: 100, Y: 100, W: 200, H: 40}
	button := &timeline.Rect{X: 500, Y: 300, W: 100, H: 40}
	for _, c := range []struct {
		name     string
		x, y     float64
		last     bool
		from, to *timeline.Rect
		want     string
	}{
		{"still over the field", 150, 120, false, field, button, "text"},
		{"on the field's edge", 300, 140, false, field, button, "text"},
		{"between the two", 400, 200, false, field, button, "auto"},
		{"over the button", 510, 310, false, field, button, "pointer"},
		{"the end, wherever it is", 0, 0, true, field, button, "pointer"},
		{"from nothing known", 150, 120, false, nil, button, "auto"},
		{"a bare move keeps its shape", 400, 200, false, field, nil, "text"},
		{"a bare move's end", 400, 200, true, field, nil, "pointer"},
		{"boxes that overlap: the destination wins", 150, 120, false, field, field, "pointer"},
	} {
		if got := shapeAlong(c.x, c.y, c.last, c.from, c.to, "text", "pointer"); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// Filmed: from a text field to a button far from it, the receipts carry
// the I-beam, then the arrow, then the hand, in that order and each at
// least once. The field is tall, so that the path stays over it for a
// quarter of its way: a loaded machine sends only the points whose time
// has come, and a move that starts late may skip a thin field's few.
func TestCursorShapeAlongThePath(t *testing.T) {
	t.Parallel() // a window of the package's live browser
	res := runSite(t, `  - goto: "data:text/html,<input id=f style='position:absolute;left:20px;top:20px;width:200px;height:120px'><button id=b style='position:absolute;left:520px;top:300px;cursor:pointer'>Go</button>"
  - click: "#f"
  - click: "#b"
`, nil)
	if res.Failed != nil {
		t.Fatalf("run: %+v", res.Failed)
	}
	if want, got := "text auto pointer", shapesAfterFirstClick(res.Timeline.Receipts); got != want {
		t.Errorf("shapes on the way from the field to the button: %v, want %v", got, want)
	}
}

// TestCursorShapeAfterAScroll: a target scrolled into view moves the page
// under the pointer, so the shape of what it was over is not kept on the
// way: the field it clicked has gone up out of view, and the cursor leaves
// empty space with the arrow.
func TestCursorShapeAfterAScroll(t *testing.T) {
	t.Parallel() // a window of the package's live browser
	res := runSite(t, `  - goto: "data:text/html,<input id=f style='position:absolute;left:20px;top:20px;width:200px'><div style='height:3000px'></div><button id=b style='position:absolute;left:400px;top:2400px;cursor:pointer'>Go</button>"
  - click: "#f"
  - click: "#b"
`, nil)
	if res.Failed != nil {
		t.Fatalf("run: %+v", res.Failed)
	}
	if want, got := "auto pointer", shapesAfterFirstClick(res.Timeline.Receipts); got != want {
		t.Errorf("shapes on the way to a button scrolled into view: %v, want %v", got, want)
	}
	// A step that scrolls without moving the pointer (a screenshot of an
	// element) moves the page under it too: the next move starts with
	// the arrow though its own target needs no scroll.
	res = runSite(t, `  - goto: "data:text/html,<input id=f style='position:absolute;left:20px;top:20px;width:200px'><div style='height:3000px'></div><p id=p style='position:absolute;left:100px;top:2400px'>Far</p><button id=b style='position:absolute;left:400px;top:2450px;cursor:pointer'>Go</button>"
  - click: "#f"
  - screenshot: {file: far.png, target: "#p"}
  - click: "#b"
`, nil)
	if res.Failed != nil {
		t.Fatalf("run: %+v", res.Failed)
	}
	if want, got := "auto pointer", shapesAfterFirstClick(res.Timeline.Receipts); got != want {
		t.Errorf("shapes on the way to a button after a screenshot scrolled: %v, want %v", got, want)
	}
}

// shapesAfterFirstClick lists the shapes the cursor took on the moves
// after the first press, each once in turn.
func shapesAfterFirstClick(receipts []timeline.Receipt) string {
	var shapes []string
	downs := 0
	for _, r := range receipts {
		if r.Kind == timeline.InputDown {
			downs++
		}
		if downs == 1 && r.Kind == timeline.InputMove && (len(shapes) == 0 || shapes[len(shapes)-1] != r.Cursor) {
			shapes = append(shapes, r.Cursor)
		}
	}
	return strings.Join(shapes, " ")
}
