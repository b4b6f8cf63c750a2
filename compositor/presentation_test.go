package compositor

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clapper-dev/clapper/timeline"
)

func msT(n int) timeline.Time { return timeline.FromDuration(ms(n)) }

func TestStory(t *testing.T) {
	long := (*string)(nil)
	u := "http://a/"
	tl := &timeline.Timeline{
		Capture: timeline.Capture{Tab: "T"},
		Steps: []timeline.Step{
			{Kind: "click", Traits: timeline.Traits{ChangesPage: true, Focus: true}, Label: "Save", Start: msT(100), End: msT(300)},
			{Kind: "caption", Text: "Hello", Start: msT(200), Duration: ms(500)},
			{Kind: "caption", Text: "No duration", Start: msT(900)},
			{Kind: "caption", Text: "  ", Start: msT(950)},
			{Kind: "type", Traits: timeline.Traits{ChangesPage: true, Focus: true}, Label: "Password", Start: msT(1000), End: msT(2000), Hidden: true},
			{Kind: "chapter", Text: "Two", Start: msT(2500)},
			{Kind: "chapter", Text: "One", Start: msT(50)},
			{Kind: "cursor", Text: "hide", Start: msT(3000)},
			{Kind: "cursor", Text: "hide", Start: msT(3100)},
			{Kind: "cursor", Text: "show", Start: msT(3500)},
			{Kind: "cursor", Text: "hide", Start: msT(4000)},
		},
		Receipts: []timeline.Receipt{
			{Kind: "key", Type: "keyDown", Key: "a", Sent: msT(10), Tab: "T"},
			{Kind: "key", Type: "keyUp", Key: "a", Sent: msT(20), Tab: "T"},
			{Kind: "key", Type: "keyDown", Key: "•", Sent: msT(30), Tab: "T"},
			{Kind: "key", Type: "keyDown", Key: "x", Sent: msT(35), Tab: "scout"},
			{Kind: "key", Type: "keyDown", Key: "Enter", Sent: msT(40)},
			{Kind: "key", Type: "char", Key: "b", Sent: msT(50)},
		},
		Boundaries: []timeline.Boundary{{Document: 0, URL: &u, At: 0}, {Document: 1, URL: long, At: msT(500)}},
	}
	if got := hiddenCuts(tl); len(got) != 1 || got[0] != (Segment{Start: msT(1000), End: msT(2000)}) {
		t.Errorf("cuts = %v", got)
	}
	// A hidden step still running in a killed run's recovered take is cut
	// to the take's end, even one whose start was its last record.
	rec := *tl
	rec.End = msT(6000)
	rec.Steps = append(slices.Clone(tl.Steps), timeline.Step{Index: 90, Kind: "type", Hidden: true, Start: msT(5000), End: msT(5000)})
	rec.Recovered = &timeline.Recovery{Open: []int{90}}
	if got := hiddenCuts(&rec); len(got) != 2 || got[1] != (Segment{Start: msT(5000), End: msT(6000)}) {
		t.Errorf("recovered cuts = %v", got)
	}
	cs := captions(tl, false)
	if len(cs) != 2 || cs[0] != (Caption{msT(200), msT(700), "Hello"}) || cs[1] != (Caption{msT(900), msT(900) + timeline.FromDuration(defaultCaption), "No duration"}) {
		t.Errorf("captions = %+v", cs)
	}
	cl := captions(tl, true)
	if len(cl) != 3 || cl[0] != (Caption{msT(100), msT(1100), "Save"}) {
		t.Errorf("captions with labels = %+v (hidden steps' labels must not show)", cl)
	}
	if ch := chapters(tl); len(ch) != 2 || ch[0].Title != "One" || ch[1].Title != "Two" {
		t.Errorf("chapters = %+v", ch)
	}
	hs := cursorHides(tl)
	if len(hs) != 2 || hs[0] != (Segment{Start: msT(3000), End: msT(3500)}) || hs[1].Start != msT(4000) || hs[1].End < msT(1e9) {
		t.Errorf("hides = %v", hs)
	}
	ks := keyPresses(tl)
	var labels []string
	for _, k := range ks {
		labels = append(labels, k.Label)
	}
	if strings.Join(labels, ",") != "a,•,⏎" {
		t.Errorf("keys = %v, want a,•,⏎ (no keyUp, char or other tab)", labels)
	}
	us := documentURLs(tl, "")
	if len(us) != 2 || us[0].URL != u || !strings.Contains(us[1].URL, "longer than 8192") {
		t.Errorf("urls = %+v", us)
	}
}

func TestDisplayURL(t *testing.T) {
	const served = "http://127.0.0.1:40969"
	cases := []struct{ u, host, want string }{
		{served + "/index.html?x=1", "acme.app", "https://acme.app/index.html?x=1"},
		{served + "/", "http://acme.test/", "http://acme.test/"},
		{served, "acme.app", "https://acme.app"},
		{served + "1/other", "acme.app", served + "1/other"}, // another port
		{"https://example.com/", "acme.app", "https://example.com/"},
		{served + "/a", "", served + "/a"},
	}
	for _, c := range cases {
		if got := displayURL(c.u, served, c.host); got != c.want {
			t.Errorf("displayURL(%q, %q) = %q, want %q", c.u, c.host, got, c.want)
		}
	}
	if got := displayURL(served+"/a", "", "acme.app"); got != served+"/a" {
		t.Errorf("no served origin: %q", got)
	}
}

func TestCursorPath(t *testing.T) {
	rs := []timeline.Receipt{
		{Kind: "move", X: 0, Y: 0, Sent: msT(100)},
		{Kind: "move", X: 100, Y: 0, Sent: msT(200), Cursor: "pointer"},
		{Kind: "down", X: 100, Y: 0, Sent: msT(210), Cursor: "pointer"},
		{Kind: "move", X: 100, Y: 200, Sent: msT(1000), Cursor: "text"},
	}
	at := func(smoothing string, shapes bool, idle time.Duration, hides []Segment, times ...int) []CursorState {
		cp := NewCursorPath(NewCursorTrack(rs, ""), CursorSettings{Smoothing: smoothing, Shapes: shapes, HideIdle: idle}, hides)
		var out []CursorState
		for _, ms := range times {
			out = append(out, cp.At(msT(ms)))
		}
		return out
	}
	raw := at("raw", true, 0, nil, 50, 100, 205, 1100)
	if raw[0].Visible || raw[1] != (CursorState{true, 0, 0, "arrow"}) || raw[2] != (CursorState{true, 100, 0, "pointer"}) || raw[3] != (CursorState{true, 100, 200, "text"}) {
		t.Errorf("raw = %+v", raw)
	}
	// ease: the glide to (100,0) lasts until the next receipt (10 ms), the
	// one to (100,200) 120 ms: half way at 1060 ms.
	ease := at("ease", false, 0, nil, 200, 205, 210, 1060, 1120, 1500)
	if ease[0].X != 0 || math.Abs(ease[1].X-50) > 1e-9 || ease[2].X != 100 {
		t.Errorf("ease 200-210 ms: %+v", ease[:3])
	}
	if math.Abs(ease[3].Y-100) > 1e-9 || ease[4].Y != 200 || ease[5].Shape != "arrow" {
		t.Errorf("ease 1060-1500 ms: %+v (shapes off: arrow)", ease[3:])
	}
	// spring: lags behind, lands exactly at the press, settles within 0.5 s.
	sp := at("spring", true, 0, nil, 205, 210, 1050, 1600)
	if sp[0].X <= 0 || sp[0].X >= 100 {
		t.Errorf("spring mid-move x = %v, want between 0 and 100", sp[0].X)
	}
	if sp[1].X != 100 || sp[1].Y != 0 {
		t.Errorf("spring at the press = %+v, want exactly (100,0)", sp[1])
	}
	if sp[2].Y <= 0 || sp[2].Y >= 200 || math.Abs(sp[3].Y-200) > 0.5 {
		t.Errorf("spring = %+v", sp[2:])
	}
	idle := at("raw", true, 500*time.Millisecond, []Segment{{Start: msT(1200), End: msT(1300)}}, 700, 711, 1100, 1250, 1350, 1600)
	vis := []bool{true, false, true, false, true, false}
	for i, v := range vis {
		if idle[i].Visible != v {
			t.Errorf("idle/hide sample %d visible = %v, want %v", i, idle[i].Visible, v)
		}
	}
}

// A shape read again under a still pointer (a new page) changes the
// cursor's shape from then on, never its place, and does not wake a
// cursor hidden as idle.
func TestCursorPathShape(t *testing.T) {
	rs := []timeline.Receipt{
		{Kind: "move", X: 10, Y: 20, Sent: msT(100), Cursor: "text"},
		{Kind: timeline.PointerShape, X: 10, Y: 20, Sent: msT(900), Cursor: "auto"},
	}
	cp := NewCursorPath(NewCursorTrack(rs, ""), CursorSettings{Smoothing: "ease", Shapes: true, HideIdle: 500 * time.Millisecond}, nil)
	got := []CursorState{cp.At(msT(500)), cp.At(msT(700)), cp.At(msT(950))}
	want := []CursorState{{true, 10, 20, "text"}, {false, 10, 20, "text"}, {false, 10, 20, "arrow"}}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("sample %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	cp = NewCursorPath(NewCursorTrack(rs, ""), CursorSettings{Smoothing: "raw", Shapes: true}, nil)
	if st := cp.At(msT(1000)); st != (CursorState{true, 10, 20, "arrow"}) {
		t.Errorf("without hide_idle: %+v", st)
	}
}

func TestZoomTrack(t *testing.T) {
	vp := timeline.Viewport{Width: 400, Height: 200, Scale: 1}
	tl := &timeline.Timeline{Viewport: vp, Steps: []timeline.Step{
		{Kind: "zoom", Region: &timeline.Rect{X: 300, Y: 100, W: 40, H: 20}, Scale: 9, Duration: ms(1000), Start: msT(1000)},
		{Kind: "click", Traits: timeline.Traits{ChangesPage: true, Focus: true}, Region: &timeline.Rect{X: 0, Y: 0, W: 20, H: 20}, Start: msT(3000), End: msT(3200)},
		{Kind: "zoom", Region: &timeline.Rect{X: 0, Y: 0, W: 100, H: 50}, Start: msT(6000), Hidden: true},
		{Kind: "zoom", Region: &timeline.Rect{X: 0, Y: 0, W: 100, H: 50}, Start: msT(7000)},
	}}
	zs := ZoomSettings{Scale: 1.5, MaxScale: 3, Ease: 400 * time.Millisecond}
	shots := zoomShots(tl, zs)
	// Scale 9 is capped at 3; the fitted zoom (3.48 for the region with a
	// margin) too; the hidden zoom step is gone, but it still ends the first
	// zoom; the last one holds to the end.
	if len(shots) != 2 || shots[0].To.Z != 3 || shots[1].To.Z != 3 || shots[0].End != msT(6000) || shots[0].In != ms(1000) || shots[1].End != endOfTake {
		t.Errorf("shots (auto off) = %+v", shots)
	}
	zs.Auto = true
	shots = zoomShots(tl, zs)
	if len(shots) != 3 || shots[1].To != (zoomState{1.5, 10, 10}) || shots[1].End != msT(4200) {
		t.Fatalf("shots (auto) = %+v", shots)
	}
	s, _ := newSchedule(10, 0, msT(10000), nil)
	zt := newZoomTrack(shots, s, vp, 400*time.Millisecond)
	base := zoomState{1, 200, 100}
	for _, c := range []struct {
		k    int
		want zoomState
	}{
		// The first zoom moves over its duration (10 ticks), the others
		// over the ease (4 ticks); the click's automatic zoom interrupts
		// the first, which comes back after it and holds to the next zoom
		// step.
		{0, base}, {10, base}, {15, zoomState{2, 260, 105}}, {20, shots[0].To}, {29, shots[0].To},
		{34, shots[1].To}, {41, shots[1].To}, {46, shots[0].To}, {59, shots[0].To},
		{64, base}, {69, base}, {74, shots[2].To}, {99, shots[2].To},
	} {
		got := zt.At(c.k)
		if math.Abs(got.Z-c.want.Z) > 1e-9 || math.Abs(got.CX-c.want.CX) > 1e-9 || math.Abs(got.CY-c.want.CY) > 1e-9 {
			t.Errorf("At(%d) = %+v, want %+v", c.k, got, c.want)
		}
	}
	// The camera never shows outside the page, and the cursor maps through it.
	g, _ := newGeometry(800, 400, vp, 800, 400)
	x, y, w, h := g.zoomWindow(zoomState{3, 390, 190})
	if x+w > 800 || y+h > 400 || w != 266 || h != 133 || x%2 != 0 {
		t.Errorf("zoom window = %d,%d %dx%d", x, y, w, h)
	}
	px, py := g.ZoomedPoint(zoomState{2, 200, 100}, 200, 100)
	if math.Abs(px-400) > 0.01 || math.Abs(py-200) > 0.01 {
		t.Errorf("centre under zoom 2 = %v,%v, want 400,200", px, py)
	}
	px, _ = g.ZoomedPoint(zoomState{2, 200, 100}, 150, 100)
	if math.Abs(px-200) > 0.01 {
		t.Errorf("50 CSS px left of centre under zoom 2 = %v, want 200", px)
	}
	z, xe, _ := zt.zoompanExprs(g, "on")
	if !strings.HasPrefix(z, "if(lt(on,") || !strings.HasSuffix(xe, "-iw/zoom/2") || strings.Count(z, "if(") != len(zt.segs) {
		t.Errorf("zoom expr = %s", z)
	}
}

func TestSidecars(t *testing.T) {
	s, _ := newSchedule(10, 0, msT(5000), []Segment{{Start: msT(1000), End: msT(2000)}})
	var b bytes.Buffer
	cs := []Caption{{msT(100), msT(500), "a <b> & -->"}, {msT(1200), msT(1500), "cut"}, {msT(1500), msT(2500), "half\n\ncut"}}
	if err := writeCaptionsVTT(&b, cs, s); err != nil {
		t.Fatal(err)
	}
	want := "WEBVTT\n\n1\n00:00:00.100 --> 00:00:00.500\na &lt;b&gt; &amp; --&gt;\n\n2\n00:00:01.000 --> 00:00:01.500\nhalf\ncut\n"
	if b.String() != want {
		t.Errorf("captions vtt:\n%q\nwant\n%q", b.String(), want)
	}
	b.Reset()
	ch := []Chapter{{0, "Intro"}, {msT(1500), "Inside cut"}, {msT(3000), "Later; #1 = x"}}
	if err := writeFFMetadata(&b, ch, s, "Demo"); err != nil {
		t.Fatal(err)
	}
	want = ";FFMETADATA1\ntitle=Demo\n\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=1000\ntitle=Intro\n\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=1000\nEND=2000\ntitle=Inside cut\n\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=2000\nEND=4000\ntitle=Later\\; \\#1 \\= x\n"
	if b.String() != want {
		t.Errorf("ffmetadata:\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	_ = writeChaptersVTT(&b, ch[:1], s)
	if !strings.Contains(b.String(), "00:00:00.000 --> 00:00:04.000\nIntro") {
		t.Errorf("chapters vtt:\n%s", b.String())
	}
}

func TestOverlayStudio(t *testing.T) {
	g, _ := layout(640, 360, timeline.Viewport{Width: 320, Height: 180, Scale: 2}, 800, 500, "contain",
		FrameSettings{Enabled: true, Padding: 20, Radius: 10, Bar: true})
	s, _ := newSchedule(10, 0, msT(4000), []Segment{{Start: msT(1000), End: msT(2000)}})
	keys := []KeyPress{{msT(100), "h"}, {msT(200), "i"}, {msT(1500), "•"}, {msT(2500), "⏎"}}
	var b bytes.Buffer
	err := writeOverlay(&b, overlayInput{Schedule: s, Geometry: g, Cursor: CursorSettings{}, Keys: keys,
		Captions: []Caption{{msT(0), msT(500), "{\\b1}x"}, {msT(2500), msT(3000), "two\nlines"}}, URLs: []URLSpan{{0, "http://a/{x}"}},
		Corners: &[4]colorRGBA{}, Radius: 10})
	if err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"Keys,,0,0,0,,h\n", "Keys,,0,0,0,,hi\n", "Keys,,0,0,0,,⏎\n", // the press inside the cut is dropped
		"Caption,,0,0,0,,\uff5b\\\u200bb1\uff5dx\n", // no override block from page text
		"http://a/\uff5bx\uff5d\n", "Caption,,0,0,0,,two\\Nlines\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("overlay lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "•") {
		t.Error("a key pressed inside a cut is shown")
	}
	if n := strings.Count(out, ",Mask,"); n != 2 {
		t.Errorf("%d corner masks, want 2 (the bar has its own top corners)", n)
	}
	if strings.Contains(out, ",Cursor,,") {
		t.Error("cursor drawn while disabled")
	}
}

func TestKeyChordsShowOnce(t *testing.T) {
	tl := &timeline.Timeline{Receipts: []timeline.Receipt{
		{Kind: "key", Type: "keyDown", Key: "a", Sent: msT(100), Step: 1},
		{Kind: "key", Type: "rawKeyDown", Key: "Control", Sent: msT(200), Step: 2},
		{Kind: "key", Type: "rawKeyDown", Key: "Shift", Sent: msT(210), Step: 2},
		{Kind: "key", Type: "rawKeyDown", Key: "Control+Shift+k", Sent: msT(220), Step: 2},
		{Kind: "key", Type: "keyUp", Key: "Control+Shift+k", Sent: msT(230), Step: 2},
		{Kind: "key", Type: "rawKeyDown", Key: "Shift", Sent: msT(300), Step: 3}, // a lone Shift stays
		{Kind: "key", Type: "keyDown", Key: "Enter", Sent: msT(400), Step: 4},
	}}
	var got []string
	for _, k := range keyPresses(tl) {
		got = append(got, k.Label)
	}
	if strings.Join(got, " ") != "a Ctrl+Shift+K Shift ⏎" {
		t.Errorf("keys %q", got)
	}
}
