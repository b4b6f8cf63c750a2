package compositor

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clapper-dev/clapper/internal/outrules"
	"github.com/clapper-dev/clapper/timeline"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// golden compares got with testdata/name.golden, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./compositor/ -run %s -update)", err, t.Name())
	}
	if string(want) != got {
		t.Errorf("%s differs from %s:\n--- got\n%s\n--- want\n%s", t.Name(), path, got, want)
	}
}

func TestArgsGolden(t *testing.T) {
	hidpi, _ := newGeometry(2560, 1440, timeline.Viewport{Width: 1280, Height: 720, Scale: 2}, 1920, 1080)
	square, _ := newGeometry(1280, 720, timeline.Viewport{Width: 1280, Height: 720, Scale: 1}, 1080, 1080)
	framed, _ := layout(2560, 1440, timeline.Viewport{Width: 1280, Height: 720, Scale: 2}, 1920, 1080, "contain",
		FrameSettings{Enabled: true, Padding: 48, Radius: 12, Bar: true})
	cover, _ := layout(1280, 720, timeline.Viewport{Width: 1280, Height: 720, Scale: 1}, 1080, 1080, "cover", FrameSettings{})
	sched, _ := newSchedule(30, 0, timeline.Time(10*second), nil)
	zoom := newZoomTrack([]zoomShot{{Start: timeline.Time(2 * second), End: timeline.Time(4 * second), To: zoomState{2, 300, 200}}},
		sched, timeline.Viewport{Width: 1280, Height: 720}, 400e6)
	mp4 := func(path string) outputSpec {
		return outputSpec{Format: formatMP4, Path: path, CRF: 20, Preset: "veryfast"}
	}
	cases := []struct {
		name string
		sp   encodeSpec
	}{
		{"args_mp4_overlay", encodeSpec{FPS: 60, Ticks: 300, Geometry: hidpi, Overlay: "/tmp/render/overlay.ass", Background: "black",
			Outputs: []outputSpec{mp4("/out/.demo.partial-1.mp4")}}},
		{"args_mp4_letterbox_plain", encodeSpec{FPS: 30, Ticks: 300, Geometry: square, Background: "#1e1e2e",
			Outputs: []outputSpec{{Format: formatMP4, Path: "out/.social.partial-2.mp4", CRF: 23, Preset: "medium"}}}},
		{"args_mp4_escaped_path", encodeSpec{FPS: 25, Ticks: 300, Geometry: square, Overlay: "/tmp/it's:a,[dir];/o.ass", Background: "black",
			Outputs: []outputSpec{mp4("/out/x.mp4")}}},
		{"args_framed_multi", encodeSpec{FPS: 60, Ticks: 300, Geometry: framed, Overlay: "/w/overlay.ass", FrameImage: "/w/frame.png",
			Outputs: []outputSpec{
				{Format: formatMP4, Path: "/o/a.mp4", CRF: 20, Preset: "veryfast", Chapters: "/w/chapters.txt"},
				{Format: formatWebM, Path: "/o/a.webm", CRF: 20, Chapters: "/w/chapters.txt"},
				{Format: formatPNG, Path: "/o/.a.partial-3/%06d.png"},
			}}},
		{"args_cover_zoom", encodeSpec{FPS: 30, Ticks: 300, Geometry: cover, Overlay: "/w/o.ass", Background: "black", Zoom: zoom,
			Outputs: []outputSpec{mp4("/o/z.mp4")}}},
		{"args_gif_palette", encodeSpec{FPS: 15, Ticks: 300, Geometry: square, Overlay: "/w/o.ass", Background: "black",
			Outputs: []outputSpec{{Format: formatPalette, Path: "/w/palette.png"}}}},
		{"args_gif", encodeSpec{FPS: 15, Ticks: 300, Geometry: square, Overlay: "/w/o.ass", Background: "black", Palette: "/w/palette.png",
			Outputs: []outputSpec{{Format: formatGIF, Path: "/o/.r.partial-4.gif"}}}},
		{"args_gif_one_pass", encodeSpec{FPS: 15, Ticks: 60, Geometry: square, Overlay: "/w/o.ass", Background: "black", PaletteInGraph: true,
			Outputs: []outputSpec{{Format: formatGIF, Path: "/o/.r.partial-5.gif"}}}},
		{"args_gif_one_pass_two", encodeSpec{FPS: 15, Ticks: 60, Geometry: square, Background: "black", PaletteInGraph: true,
			Outputs: []outputSpec{{Format: formatGIF, Path: "/o/.a.partial-6.gif"}, {Format: formatGIF, Path: "/o/.b.partial-7.gif"}}}},
		{"args_gif_one_pass_mixed", encodeSpec{FPS: 15, Ticks: 60, Geometry: square, Background: "black", PaletteInGraph: true,
			Outputs: []outputSpec{{Format: formatGIF, Path: "/o/.a.partial-8.gif"}, mp4("/o/.b.partial-9.mp4"), {Format: formatGIF, Path: "/o/.c.partial-10.gif"}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args, _, err := buildArgs(c.sp)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, c.name, strings.Join(args, "\n")+"\n")
		})
	}
	if _, _, err := buildArgs(encodeSpec{FPS: 15, Ticks: 300, Geometry: square, Outputs: []outputSpec{{Format: formatGIF, Path: "x.gif"}}}); err == nil {
		t.Error("gif without a palette: want an error")
	}
}

// TestNoBFrames: the presets clapper chooses itself encode without
// B-frames (-bf 0 right after the preset); every other keeps x264's
// choice.
func TestNoBFrames(t *testing.T) {
	geo, _ := newGeometry(1280, 720, timeline.Viewport{Width: 1280, Height: 720, Scale: 1}, 1280, 720)
	for _, p := range outrules.X264Presets {
		want := p == defaultX264Preset(60) || p == defaultX264Preset(30)
		if noBFrames(p) != want {
			t.Errorf("noBFrames(%q) = %v, want %v", p, !want, want)
		}
		args, _, err := buildArgs(encodeSpec{FPS: 60, Ticks: 60, Geometry: geo, Background: "black",
			Outputs: []outputSpec{{Format: formatMP4, Path: "/o/a.mp4", CRF: 20, Preset: p}}})
		if err != nil {
			t.Fatal(err)
		}
		i := slices.Index(args, "-bf")
		if got := i >= 0; got != want || got && (args[i+1] != "0" || args[i-2] != "-preset") {
			t.Errorf("preset %s: -bf at %d in %q", p, i, args)
		}
	}
}

// TestGIFOnePass: a GIF is made in one pass while every frame it holds
// until its palette fits gifOnePassBytes, and in two beyond.
func TestGIFOnePass(t *testing.T) {
	perFrame := int64(800 * 450 * gifHeldPerPixel)
	fit := int(defaultGIFOnePassBytes / perFrame)
	for _, c := range []struct {
		ticks, w, h int
		want        bool
	}{
		{1, 800, 450, true},
		{56, 800, 450, true}, // the quickstart's GIF
		{fit, 800, 450, true},
		{fit + 1, 800, 450, false},
		{15 * 60, 800, 450, false},   // a minute
		{1 << 30, 4096, 4096, false}, // no overflow
		{0, 800, 450, true},
	} {
		if got := gifOnePass(c.ticks, c.w, c.h, defaultGIFOnePassBytes); got != c.want {
			t.Errorf("gifOnePass(%d, %d, %d) = %v, want %v", c.ticks, c.w, c.h, got, c.want)
		}
	}
	if fit < 60 || fit > 120 {
		t.Errorf("an 800x450 GIF is one pass up to %d frames: want 4 to 8 s at 15 fps", fit)
	}
}

// TestArgsEncoderThreads: an MP4 output's Threads becomes -threads right
// before its encoder (an output option of that file alone); 0 leaves
// ffmpeg's default.
func TestArgsEncoderThreads(t *testing.T) {
	geo, _ := newGeometry(1280, 720, timeline.Viewport{Width: 1280, Height: 720, Scale: 1}, 1280, 720)
	for _, n := range []int{0, 1, 2} {
		sp := encodeSpec{FPS: 60, Ticks: 60, Geometry: geo, Background: "black",
			Outputs: []outputSpec{{Format: formatMP4, Path: "/o/a.mp4", CRF: 20, Preset: "superfast", Threads: n}}}
		args, _, err := buildArgs(sp)
		if err != nil {
			t.Fatal(err)
		}
		enc := slices.Index(args, "libx264") - 1
		th := slices.Index(args, "-threads")
		switch {
		case n == 0 && th >= 0:
			t.Errorf("threads 0: -threads given: %q", args)
		case n > 0 && (th < 0 || th+2 != enc || args[th+1] != itoa(n)):
			t.Errorf("threads %d: want -threads %d right before -c:v libx264: %q", n, n, args)
		}
	}
}

// TestGIFLowres: a GIF's pictures are decoded smaller only as far as the
// page, at the camera's closest, is still shrunk, never enlarged; the
// decoder's option precedes the input.
func TestGIFLowres(t *testing.T) {
	geo := func(capW, capH, scaledW, scaledH int) Geometry {
		return Geometry{CaptureW: capW, CaptureH: capH, ScaledW: scaledW, ScaledH: scaledH}
	}
	for _, c := range []struct {
		g    Geometry
		zoom float64
		want int
	}{
		{geo(2560, 1440, 686, 386), 1, 1},   // scale 2 to the quickstart's GIF: a quarter would be 640 < 686
		{geo(2560, 1440, 686, 386), 1.6, 1}, // 1280 >= 686*1.6
		{geo(2560, 1440, 686, 386), 2, 0},   // 1280 < 1372
		{geo(2560, 1440, 600, 338), 1, 2},   // 640 >= 600
		{geo(5120, 2880, 600, 338), 1, 2},   // at most a quarter
		{geo(1280, 720, 686, 386), 1, 0},    // scale 1: 640 < 686
		{geo(1281, 721, 640, 360), 1, 1},    // the decoder rounds up: 641x361
		{geo(1280, 720, 1280, 720), 1, 0},
	} {
		if got := gifLowres(c.g, c.zoom); got != c.want {
			t.Errorf("gifLowres(%dx%d to %dx%d, zoom %.1f) = %d, want %d", c.g.CaptureW, c.g.CaptureH, c.g.ScaledW, c.g.ScaledH, c.zoom, got, c.want)
		}
	}
	if decodedSize(1441, 1) != 721 || decodedSize(1440, 2) != 360 || decodedSize(7, 0) != 7 {
		t.Error("decodedSize does not round up as the decoder does")
	}
	g, err := newGeometry(1280, 720, timeline.Viewport{Width: 1280, Height: 720, Scale: 1}, 640, 360)
	if err != nil {
		t.Fatal(err)
	}
	args, _, err := buildArgs(encodeSpec{FPS: 15, Ticks: 10, Geometry: g, Lowres: 1, Outputs: []outputSpec{{Format: formatPalette, Path: "p.png"}}})
	if err != nil {
		t.Fatal(err)
	}
	i, j := slices.Index(args, "-lowres"), slices.Index(args, "pipe:0")
	if i < 0 || args[i+1] != "1" || j < i {
		t.Fatalf("-lowres 1 is not an option of the picture input: %q", args)
	}
}
