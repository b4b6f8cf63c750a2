package compositor

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/clapper-dev/clapper/internal/outrules"
)

// Settings say how a take is rendered. Start from DefaultSettings (or a
// preset); zero numeric fields fall back to the defaults.
type Settings struct {
	// FPS is the output frame rate, 1 to 120 as anywhere else
	// (outrules); 0 means 30.
	FPS int
	// Width and Height are the output size in pixels; 0 means the capture
	// size (the first frame's), plus the window frame when there is one.
	Width, Height int
	// Fit says how the capture fills an output of another shape: "contain"
	// (letterbox, the default) or "cover" (fill and crop the overflow).
	Fit string
	// CRF is the constant rate factor: x264's, 1 to 51; 0 means the
	// default, 20 (x264's lossless 0 is not offered). WebM maps it to VP9's
	// scale.
	CRF int
	// X264Preset is the x264 speed preset; empty, it is chosen by the
	// frame rate when the settings are normalized (defaultX264Preset).
	X264Preset string
	// Cursor draws the pointer from the input receipts.
	Cursor CursorSettings
	// FFmpeg is the ffmpeg binary: a path, or a name looked up in PATH.
	FFmpeg string
	// Background is the letterbox colour, as ffmpeg reads colours
	// ("black", "#1e1e2e").
	Background string
	// Frame wraps the page in a window on a background.
	Frame FrameSettings
	// Captions is where caption steps go: "burn" (drawn into the video, the
	// default), "vtt" (a .vtt file beside it), "both", or "none" ("" too).
	Captions string
	// StepLabels adds each labelled step's label as a caption while it runs.
	StepLabels bool
	// Chapters writes chapter steps as container chapters and a
	// NAME.chapters.vtt beside the video. Default true.
	Chapters bool
	// Zoom zooms into regions of the page.
	Zoom ZoomSettings
	// Keys shows the keys pressed, at the bottom of the picture.
	Keys bool
	// Cuts removes hidden steps from the video. Default true.
	Cuts bool
	// SpeedUp plays long waits faster. Default off.
	SpeedUp SpeedUpSettings
	// GIF sets the size and rate of .gif outputs, which ignore FPS and
	// Width/Height: default 800 pixels wide at 15 fps.
	GIF GIFSettings
	// NewFilesOnly is set when the output names came from a take (its
	// render.json), which is data: each output must be a new file, and
	// the render fails naming one that exists rather than replace it.
	NewFilesOnly bool
	// tune is what benchmarks and tests turn to compare (args.go); its
	// zero value is clapper's.
	tune tuning
}

// CursorSettings say how the pointer is drawn.
type CursorSettings struct {
	// Enabled draws the cursor. Default true.
	Enabled bool
	// Size scales the cursor; 1 is a 20 CSS-pixel arrow. Default 1.
	Size float64
	// Click draws a ripple at each button press. Default true.
	Click bool
	// Smoothing is "raw" (jump to each commanded point), "ease" (glide to
	// it, arriving by the next receipt; the default) or "spring".
	Smoothing string
	// Shapes follows the page's CSS cursor (arrow, pointer hand, text
	// I-beam) where receipts record it. Default true.
	Shapes bool
	// HideIdle hides the cursor after this long without pointer input; 0
	// never hides it.
	HideIdle time.Duration
}

// FrameSettings draw a window around the page.
type FrameSettings struct {
	Enabled bool
	// Padding is the space around the window, in output pixels.
	Padding int
	// Background is a colour ("#1e1e2e") or a gradient of two colours
	// ("#4f46e5..#06b6d4", top-left to bottom-right).
	Background string
	// Radius rounds the window's corners, in output pixels.
	Radius int
	// Shadow draws a soft shadow under the window.
	Shadow bool
	// Bar draws a browser bar with the current document's URL.
	Bar bool
	// Host, when set, shows the run's own sample site under this address
	// in the bar ("acme.app" or "https://acme.app") instead of its
	// loopback address (http://TOKEN.localhost:PORT).
	Host string
}

// SpeedUpSettings play long waits faster, shown rather than cut: the part
// of a wait (wait, expect or navigation step) longer than Over, less Keep
// at each end, plays at Speed times real time.
type SpeedUpSettings struct {
	Waits bool
	Over  time.Duration // default 2s
	Keep  time.Duration // default 500ms
	Speed float64       // default 4
}

// ZoomSettings zoom into the page.
type ZoomSettings struct {
	// Auto zooms toward the targets of click, type and fill steps.
	Auto bool
	// Scale is the automatic zoom factor (default 1.6); zoom steps carry
	// their own. Every zoom is capped at MaxScale (default 3).
	Scale    float64
	MaxScale float64
	// Ease is how long zooming in and out takes (default 400ms).
	Ease time.Duration
}

// GIFSettings size .gif outputs.
type GIFSettings struct {
	Width int
	FPS   int
}

// DefaultSettings returns the settings used when a script says nothing.
// The x264 preset is left to the frame rate (defaultX264Preset).
func DefaultSettings() Settings {
	return Settings{
		FPS:        30,
		Fit:        "contain",
		CRF:        20,
		Cursor:     CursorSettings{Enabled: true, Size: 1, Click: true, Smoothing: "ease", Shapes: true},
		FFmpeg:     "ffmpeg",
		Background: "black",
		Frame:      FrameSettings{Padding: 48, Background: "#4f46e5..#06b6d4", Radius: 12, Shadow: true},
		Captions:   "burn",
		Chapters:   true,
		Zoom:       ZoomSettings{Scale: 1.6, MaxScale: 3, Ease: 400 * time.Millisecond},
		Cuts:       true,
		GIF:        GIFSettings{Width: 800, FPS: 15},
	}
}

// presets are named starting points for Settings, one for each name in
// outrules.Presets (TestPresets holds them equal).
var presets = map[string]func(*Settings){
	// docs: 1920x1080 at 60 fps, for documentation and product pages
	// (x264's superfast preset, as at any rate of 50 fps or more:
	// defaultX264Preset).
	"docs": func(s *Settings) { s.Width, s.Height, s.FPS = 1920, 1080, 60 },
	// social: a 1080x1080 square in a window frame, for feeds.
	"social": func(s *Settings) {
		s.Width, s.Height, s.FPS = 1080, 1080, 30
		s.Frame.Enabled = true
	},
	// readme: small, for a GIF in a README.
	"readme": func(s *Settings) {
		s.GIF = GIFSettings{Width: 800, FPS: 15}
		s.FPS = 15
	},
}

// Preset returns DefaultSettings changed by the named preset: "docs"
// (1920x1080 60 fps), "social" (1080x1080 square, framed) or "readme" (for a
// GIF 800 wide at 15 fps).
func Preset(name string) (Settings, error) {
	s := DefaultSettings()
	f, ok := presets[name]
	if !ok {
		if err := outrules.CheckPreset(name); err != nil {
			return s, err
		}
		return s, fmt.Errorf("preset %q is named by outrules.Presets but has no settings here", name)
	}
	f(&s)
	return s, nil
}

// defaultX264Preset is the x264 preset of a video at fps when none is
// given: superfast at 50 fps and more, veryfast below. The encoder is most
// of a render's work, and at 60 fps it has twice the pictures a second of
// video to encode. Superfast keeps 1080p60 faster than real time on two
// cores, where veryfast falls behind, and takes less CPU time, at the same
// CRF a larger file (animated pages; a still page's repeats cost little
// either way) and no lower SSIM (docs/internals.md, "x264 settings"). The docs preset at 30 fps or less gets veryfast too. Pure.
func defaultX264Preset(fps int) string {
	if fps >= 50 {
		return "superfast"
	}
	return "veryfast"
}

// colourRE accepts the colour forms clapper documents: a name or #rrggbb.
var colourRE = regexp.MustCompile(outrules.ColourPattern)

// normalize fills zero fields with defaults and checks the rest.
func (s Settings) normalize() (Settings, error) {
	d := DefaultSettings()
	if s.FPS == 0 {
		s.FPS = d.FPS
	}
	if err := outrules.CheckFPS(s.FPS); err != nil {
		return s, err
	}
	switch {
	case s.Width == 0 && s.Height == 0: // the capture's size
	case s.Width == 0 || s.Height == 0:
		return s, fmt.Errorf("size %dx%d: give both width and height, or neither for the capture size", s.Width, s.Height)
	default:
		if err := outrules.CheckSize(s.Width, s.Height); err != nil {
			return s, err
		}
	}
	if s.Fit == "" {
		s.Fit = d.Fit
	}
	if !slices.Contains(outrules.Fits, s.Fit) {
		return s, fmt.Errorf("fit %q: use %s", s.Fit, orList(outrules.Fits))
	}
	if s.CRF == 0 {
		s.CRF = d.CRF
	}
	if s.CRF < outrules.MinCRF || s.CRF > outrules.MaxCRF {
		return s, fmt.Errorf("crf %d: must be between %d and %d", s.CRF, outrules.MinCRF, outrules.MaxCRF)
	}
	if s.X264Preset == "" {
		s.X264Preset = defaultX264Preset(s.FPS)
	}
	if !slices.Contains(outrules.X264Presets, s.X264Preset) {
		return s, fmt.Errorf("x264 preset %q: use %s", s.X264Preset, orList(outrules.X264Presets))
	}
	if s.Cursor.Size == 0 {
		s.Cursor.Size = 1
	}
	if s.Cursor.Size < outrules.MinCursorSize || s.Cursor.Size > outrules.MaxCursorSize {
		return s, fmt.Errorf("cursor size %g: must be between %g and %g", s.Cursor.Size, outrules.MinCursorSize, outrules.MaxCursorSize)
	}
	if s.Cursor.Smoothing == "" {
		s.Cursor.Smoothing = d.Cursor.Smoothing
	}
	if !slices.Contains(outrules.Smoothings, s.Cursor.Smoothing) {
		return s, fmt.Errorf("cursor smoothing %q: use %s", s.Cursor.Smoothing, orList(outrules.Smoothings))
	}
	if s.Cursor.HideIdle < 0 {
		return s, fmt.Errorf("cursor hide_idle %v: must not be negative", s.Cursor.HideIdle)
	}
	if s.FFmpeg == "" {
		s.FFmpeg = d.FFmpeg
	}
	if s.Background == "" {
		s.Background = d.Background
	}
	if !colourRE.MatchString(s.Background) {
		return s, fmt.Errorf("background %q: use %s", s.Background, outrules.ColourHint)
	}
	if err := s.Frame.normalize(d.Frame); err != nil {
		return s, err
	}
	if s.Captions != "" && !slices.Contains(outrules.Captions, s.Captions) {
		return s, fmt.Errorf("captions %q: use %s", s.Captions, orList(outrules.Captions))
	}
	if s.Zoom.Scale == 0 {
		s.Zoom.Scale = d.Zoom.Scale
	}
	if s.Zoom.MaxScale == 0 {
		s.Zoom.MaxScale = d.Zoom.MaxScale
	}
	if s.Zoom.Ease == 0 {
		s.Zoom.Ease = d.Zoom.Ease
	}
	for _, z := range []float64{s.Zoom.Scale, s.Zoom.MaxScale} {
		if z < outrules.MinZoom || z > outrules.MaxZoom {
			return s, fmt.Errorf("zoom scale %g (max %g): must be between %d and %d", s.Zoom.Scale, s.Zoom.MaxScale, outrules.MinZoom, outrules.MaxZoom)
		}
	}
	if s.Zoom.Ease < 0 {
		return s, fmt.Errorf("zoom ease %v: must not be negative", s.Zoom.Ease)
	}
	if s.GIF.Width == 0 {
		s.GIF.Width = d.GIF.Width
	}
	if s.GIF.FPS == 0 {
		s.GIF.FPS = d.GIF.FPS
	}
	if s.GIF.Width < outrules.MinGIFWidth || s.GIF.Width > outrules.MaxGIFWidth || s.GIF.FPS < outrules.MinGIFFPS || s.GIF.FPS > outrules.MaxGIFFPS {
		return s, fmt.Errorf("gif %d wide at %d fps: width %d-%d, fps %d-%d", s.GIF.Width, s.GIF.FPS, outrules.MinGIFWidth, outrules.MaxGIFWidth, outrules.MinGIFFPS, outrules.MaxGIFFPS)
	}
	return s, nil
}

func (f *FrameSettings) normalize(d FrameSettings) error {
	if f.Padding < 0 || f.Padding > outrules.MaxPadding {
		return fmt.Errorf("frame padding %d: must be between 0 and %d", f.Padding, outrules.MaxPadding)
	}
	if f.Radius < 0 || f.Radius > outrules.MaxRadius {
		return fmt.Errorf("frame radius %d: must be between 0 and %d", f.Radius, outrules.MaxRadius)
	}
	if f.Background == "" {
		f.Background = d.Background
	}
	if _, _, err := parseBackground(f.Background); err != nil {
		return fmt.Errorf("frame background: %w", err)
	}
	return nil
}

// orList says values as "a, b or c".
func orList(values []string) string {
	if len(values) < 2 {
		return strings.Join(values, "")
	}
	return strings.Join(values[:len(values)-1], ", ") + " or " + values[len(values)-1]
}
