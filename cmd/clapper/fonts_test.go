package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clapper-dev/clapper/internal/testenv"
)

// tofuCells are what the fonts test films, one per cell: emoji (one a ZWJ
// sequence), Chinese and Japanese characters, Korean syllables, and an
// Arabic and a Devanagari word, shaped whole. The last, Latin, is the
// control: Liberation Sans has it, so both films draw it alike.
var tofuCells = []string{"🚀", "✅", "👩‍💻", "日", "本", "語", "ひ", "한", "국", "어", "العربية", "हिन्दी", "A"}

const (
	cellW, cellH = 200, 120 // CSS pixels
	cellCols     = 6
)

// tofuPage lays the cells out on a white page in a grid, each in 64 px
// Liberation Sans: what a font lacks falls back to the fonts the machine
// has, and to Liberation Sans's empty box when none has it.
func tofuPage() string {
	var b strings.Builder
	b.WriteString("<!doctype html><meta charset=utf-8><style>html,body{margin:0;background:#fff}" +
		"div{position:absolute;width:" + strconv.Itoa(cellW) + "px;height:" + strconv.Itoa(cellH) + "px;line-height:" + strconv.Itoa(cellH) + "px;" +
		"font:64px 'Liberation Sans';color:#000;text-align:center;white-space:nowrap;overflow:hidden}</style>\n")
	for i, c := range tofuCells {
		fmt.Fprintf(&b, "<div style=\"left:%dpx;top:%dpx\">%s</div>\n", (i%cellCols)*cellW, (i/cellCols)*cellH, c)
	}
	return b.String()
}

// filmTofuPage films the page with clapper run, with env added to the
// environment, and returns the last frame of the video (RGB) and its width.
func filmTofuPage(t *testing.T, dir string, env []string) ([]byte, int) {
	t.Helper()
	script := filepath.Join(dir, "fonts.yaml")
	os.WriteFile(script, []byte("name: fonts\nserve: "+filepath.Join(dir, "..", "site")+"\n"+
		"browser: {viewport: {width: 1280, height: 720}}\noutput: {video: fonts.mp4, fps: 30, cursor: false}\nsteps:\n"+
		"  - goto: ${serve.url}/index.html\n  - wait: {js: \"document.fonts.ready.then(() => true)\"}\n  - pause: 1s\n"), 0o644)
	out := filepath.Join(dir, "out")
	if _, stderr, code := runCLIEnv(t, env, append([]string{"run", script, "-o", out, "-q"}, sandboxArgs()...)...); code != 0 {
		t.Fatalf("clapper run: exit %d: %s", code, stderr)
	}
	video := filepath.Join(out, "fonts.mp4")
	probe, dur := ffprobe(t, video)
	w, _ := strconv.Atoi(probe["width"])
	h, _ := strconv.Atoi(probe["height"])
	if w < cellCols*cellW || h < 3*cellH {
		t.Fatalf("video is %dx%d, smaller than the page's cells", w, h)
	}
	return decodeFrame(t, video, dur-0.2, w, h), w
}

// ink is the mask of the pixels of a cell that are not white background.
func ink(rgb []byte, w, cell int) []bool {
	x0, y0 := (cell%cellCols)*cellW, (cell/cellCols)*cellH
	var m []bool
	for y := y0 + 4; y < y0+cellH-4; y++ {
		for x := x0 + 4; x < x0+cellW-4; x++ {
			i := (y*w + x) * 3
			m = append(m, 3*255-int(rgb[i])-int(rgb[i+1])-int(rgb[i+2]) > 96)
		}
	}
	return m
}

// inkDiff is the share of the inked pixels of either mask that the other
// lacks: 0 for the same drawing, near 1 for unrelated ones.
func inkDiff(a, b []bool) (diff float64, inked int) {
	var xor, or int
	for i := range a {
		if a[i] != b[i] {
			xor++
		}
		if a[i] || b[i] {
			or++
		}
	}
	if or == 0 {
		return 0, 0
	}
	return float64(xor) / float64(or), or
}

// The fonts the set-up installs draw real pages: every cell of a page of
// emoji, Chinese, Japanese, Korean, Arabic and Devanagari, filmed with the
// machine's fonts, differs from the same page filmed where fontconfig
// knows only Liberation Sans, which lacks them all and draws the fallback
// box for each. The Latin control cell is drawn alike in both, so the
// measure tells the same drawing from another through the video's
// compression.
func TestFontsDrawEveryScript(t *testing.T) {
	testenv.Need(t, "chromium", "ffmpeg", "ffprobe", "fc-match")
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "site"), 0o755)
	os.WriteFile(filepath.Join(dir, "site", "index.html"), []byte(tofuPage()), 0o644)

	// A fontconfig that knows Liberation Sans alone, with the machine's
	// rendering rules (hinting, antialiasing) so that both films draw alike
	// what both have.
	lib, err := exec.Command("fc-match", "-f", "%{file}", "Liberation Sans").Output()
	if err != nil || !strings.Contains(string(lib), "LiberationSans") {
		t.Fatalf("Liberation Sans is not installed (%q, %v): run make setup", lib, err)
	}
	bareDir := filepath.Join(dir, "bare")
	os.MkdirAll(bareDir, 0o755)
	conf := filepath.Join(bareDir, "fonts.conf")
	os.WriteFile(conf, []byte(`<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd"><fontconfig>`+
		`<include ignore_missing="yes">/etc/fonts/conf.d</include>`+
		"<dir>"+filepath.Dir(string(lib))+"</dir><cachedir>"+filepath.Join(bareDir, "cache")+"</cachedir></fontconfig>\n"), 0o644)
	if out, err := exec.Command("env", "FONTCONFIG_FILE="+conf, "fc-list", ":charset=65e5").Output(); err != nil || len(out) != 0 {
		t.Fatalf("the bare fontconfig still has a CJK font (%v): %s", err, out)
	}

	fullDir := filepath.Join(dir, "full")
	os.MkdirAll(fullDir, 0o755)
	full, w := filmTofuPage(t, fullDir, nil)
	bare, bw := filmTofuPage(t, bareDir, []string{"FONTCONFIG_FILE=" + conf})
	if w != bw {
		t.Fatalf("videos of %d and %d pixels' width", w, bw)
	}
	last := len(tofuCells) - 1
	for i, c := range tofuCells {
		f, b := ink(full, w, i), ink(bare, w, i)
		d, inked := inkDiff(f, b)
		boxInk := 0
		for _, p := range b {
			if p {
				boxInk++
			}
		}
		switch {
		case boxInk < 50:
			t.Errorf("cell %d %q: the bare film drew nothing there (%d pixels): the measure is blind", i, c, boxInk)
		case i == last && d > 0.15:
			t.Errorf("control cell %q: the two films differ by %.2f of %d inked pixels: the measure cannot tell the same drawing", c, d, inked)
		case i != last && d < 0.3:
			t.Errorf("cell %d %q is drawn as the fallback box (it differs from the box by %.2f of %d inked pixels): a font is missing; run make setup (clapper doctor names it)", i, c, d, inked)
		}
	}
}
