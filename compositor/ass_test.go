package compositor

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clapper-dev/clapper/internal/testenv"
)

func TestCirclePathBox(t *testing.T) {
	for _, r := range []float64{5, 22, 33.5} {
		f := strings.Fields(circlePath(r))
		lo, hi := 1e9, -1e9
		for _, w := range f {
			v, err := strconv.ParseFloat(w, 64)
			if err != nil {
				continue // m, b
			}
			lo, hi = min(lo, v), max(hi, v)
		}
		if lo != 0 || hi != 2*r {
			t.Errorf("r=%v: coordinates span [%v, %v], want [0, %v]", r, lo, hi, 2*r)
		}
	}
}

// The ripple's centre lands on its \pos as libass draws it.
func TestRippleCentredOnClick(t *testing.T) {
	testenv.Need(t, "ffmpeg")
	dir := t.TempDir()
	ass := "[Script Info]\nScriptType: v4.00+\nPlayResX: 400\nPlayResY: 300\nScaledBorderAndShadow: yes\n\n[V4+ Styles]\n" +
		"Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding\n" +
		"Style: Ripple,DejaVu Sans,20,&H000000FF,&H000000FF,&H000000FF,&H00000000,0,0,0,0,100,100,0,0,1,0,0,5,0,0,0,1\n\n[Events]\n" +
		"Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\n" +
		"Dialogue: 4,0:00:00.00,0:00:01.00,Ripple,,0,0,0,,{\\pos(230,140)\\fscx50\\fscy50\\p1}" + circlePath(40) + "{\\p0}\n"
	p := filepath.Join(dir, "r.ass")
	if err := os.WriteFile(p, []byte(ass), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("ffmpeg", "-v", "error", "-f", "lavfi", "-i", "color=white:s=400x300:d=1", "-vf", "ass="+p,
		"-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	minX, maxX, minY, maxY := 400, -1, 300, -1
	for y := 0; y < 300; y++ {
		for x := 0; x < 400; x++ {
			i := (y*400 + x) * 3
			if out[i] > 200 && out[i+1] < 80 {
				minX, maxX, minY, maxY = min(minX, x), max(maxX, x), min(minY, y), max(maxY, y)
			}
		}
	}
	cx, cy := float64(minX+maxX)/2, float64(minY+maxY)/2
	if cx < 228 || cx > 232 || cy < 138 || cy > 142 {
		t.Errorf("ripple centred at (%.1f, %.1f), want (230, 140)", cx, cy)
	}
}
