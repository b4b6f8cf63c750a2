package main

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clapper-dev/clapper/timeline"
)

// This file writes takes for the tests with the timeline package's own
// writers: every value fixed, so what the CLI prints of them is too.

// testFrameColors are the frames' colours, one per frame, in order.
var testFrameColors = []color.RGBA{{200, 60, 60, 255}, {60, 170, 60, 255}, {60, 90, 200, 255}, {200, 180, 50, 255}}

// writeTestTake writes a 2.5 s take of four 64x36 frames into dir/take, with
// steps (one failed, with a label and a two-line error), receipts of five
// kinds, three documents (one whose address was too long to record), a
// hold and a cleanup receipt, and returns the take's folder.
func writeTestTake(t *testing.T, dir string) string {
	t.Helper()
	takeDir := filepath.Join(dir, "take")
	log, err := timeline.CreateTake(takeDir)
	if err != nil {
		t.Fatal(err)
	}
	at := func(ms int) timeline.Time { return timeline.FromDuration(time.Duration(ms) * time.Millisecond) }
	start := at(10_000) // the take clock does not start at 0
	for i, c := range testFrameColors {
		img := image.NewRGBA(image.Rect(0, 0, 64, 36))
		for p := 0; p < len(img.Pix); p += 4 {
			img.Pix[p], img.Pix[p+1], img.Pix[p+2], img.Pix[p+3] = c.R, c.G, c.B, 255
		}
		var b bytes.Buffer
		if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
			t.Fatal(err)
		}
		fr := timeline.Frame{Seq: int64(i), Tab: "main", Document: min(i, 2), Source: start + at(600*i), Received: start + at(600*i+4),
			Width: 64, Height: 36, Bytes: b.Len(), File: timeline.FramePath(int64(i)), Seeded: i == 0 || i == 3,
			PageScaleFactor: 1, DeviceWidth: 64, DeviceHeight: 36}
		if err := os.WriteFile(filepath.Join(takeDir, fr.File), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := log.Append(fr); err != nil {
			t.Fatal(err)
		}
	}
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	u := func(s string) *string { return &s }
	tl := &timeline.Timeline{
		Name: "Inspected", Script: "inspected.yaml", Tool: "clapper test", Outcome: "failed",
		Error:    "step 4 (expect) failed",
		Clock:    timeline.Clock{Mapping: timeline.MappingMonotonic},
		Viewport: timeline.Viewport{Width: 64, Height: 36, Scale: 1},
		Start:    start, End: start + at(2500),
		Capture: timeline.Capture{Tab: "main", Started: start, Ended: start + at(2500), EndReason: "stopped",
			Frames: timeline.Accounting{Received: 7, Delivered: 4, Late: 2, Duplicates: 1, Upstream: "unknown"}},
		Steps: []timeline.Step{
			{Index: 0, Line: 4, Col: 5, Kind: "goto", Start: start, End: start + at(300), Outcome: timeline.OutcomeOK},
			{Index: 1, Line: 5, Col: 5, Kind: "click", Label: "Open the form", Start: start + at(400), End: start + at(900), Outcome: timeline.OutcomeOK,
				Late: &timeline.Late{Planned: 300 * time.Millisecond, Took: 480 * time.Millisecond, Inputs: 2, Acks: 170 * time.Millisecond, Longest: 160 * time.Millisecond,
					Why: "the browser took 170ms to take 2 input events (the longest 160ms): the page was slow to handle input"}},
			{Index: 2, Line: 7, Col: 5, Kind: "hold", Start: start + at(1000), End: start + at(1010), Outcome: timeline.OutcomeOK},
			{Index: 3, Line: 8, Col: 5, Kind: "expect", Start: start + at(1500), End: start + at(2500), Outcome: "failed",
				Error: "expected text \"Goodbye\"\nthe page shows \"Hello\""},
		},
		Receipts: []timeline.Receipt{
			{Kind: timeline.InputMove, Tab: "main", X: 10, Y: 10, Sent: start + at(400), Acked: start + at(401), Step: 1},
			{Kind: timeline.InputDown, Tab: "main", X: 10, Y: 10, Button: "left", Clicks: 1, Sent: start + at(500), Acked: start + at(501), Step: 1},
			{Kind: timeline.InputUp, Tab: "main", X: 10, Y: 10, Button: "left", Clicks: 1, Sent: start + at(550), Acked: start + at(551), Step: 1},
			{Kind: timeline.InputMove, Tab: "main", X: 20, Y: 12, Sent: start + at(600), Acked: start + at(601), Step: 1},
			{Kind: timeline.InputWheel, Tab: "main", X: 20, Y: 12, DeltaY: 300, Sent: start + at(700), Acked: start + at(720), Step: 1},
			{Kind: timeline.InputKey, Tab: "main", Key: "a", Type: "keyDown", Sent: start + at(800), Acked: start + at(801), Step: 1},
		},
		Boundaries: []timeline.Boundary{
			{Document: 0, LastSeq: -1, URL: u("http://127.0.0.1:8080/index.html"), At: start},
			{Document: 1, LastSeq: 0, URL: u("http://127.0.0.1:8080/form.html"), At: start + at(450)},
			{Document: 2, LastSeq: 1, URL: nil, At: start + at(1300)},
		},
		Holds:   []timeline.Hold{{Tab: "main", Receipt: "hold-1", Start: start + at(1000), End: start + at(1400)}},
		Cleanup: &timeline.Cleanup{Connection: "closed", Process: "exited", Profile: "removed", At: start + at(2600)},
	}
	if err := timeline.WriteTimeline(takeDir, tl); err != nil {
		t.Fatal(err)
	}
	if _, err := timeline.Open(takeDir); err != nil {
		t.Fatal(err)
	}
	return takeDir
}

// snapshotDir lists a folder's files with their modes, modification times
// and contents.
func snapshotDir(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		b.WriteString(p + " " + fi.Mode().String() + " " + fi.ModTime().String())
		if !fi.IsDir() {
			c, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			b.WriteString(" " + string(c))
		}
		b.WriteString("\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
