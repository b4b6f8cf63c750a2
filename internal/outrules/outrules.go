// Package outrules holds the rules a video output obeys wherever it is
// set: a script's output section, render's flags and the compositor's
// settings all check frame rates, sizes, presets and video names here, so
// that a value one accepts the others accept too, with the same words.
package outrules

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Frame rates: any whole number from MinFPS to MaxFPS. 24, 25, 30, 50 and
// 60 play everywhere; a GIF often wants fewer.
const (
	MinFPS = 1
	MaxFPS = 120
)

// FPSHint says which frame rates are accepted, naming the common ones,
// which every player shows smoothly.
const FPSHint = "1 to 120, such as 24, 25, 30, 50 or 60"

// CheckFPS refuses a frame rate outside MinFPS to MaxFPS.
func CheckFPS(fps int) error {
	if fps < MinFPS || fps > MaxFPS {
		return fmt.Errorf("fps %d: use %s", fps, FPSHint)
	}
	return nil
}

// Sizes: each side from MinSide to MaxSide pixels, and even (H.264 and
// VP9 in 4:2:0 need it; one rule for every format keeps a script's size
// valid whatever it renders to).
const (
	MinSide = 16
	MaxSide = 8192
)

// SizeHint says which sizes are accepted.
const SizeHint = "even widths and heights from 16 to 8192"

// CheckSize refuses a video size outside the rule.
func CheckSize(w, h int) error {
	switch {
	case w < MinSide || h < MinSide || w > MaxSide || h > MaxSide:
		return fmt.Errorf("size %dx%d: width and height must be between %d and %d", w, h, MinSide, MaxSide)
	case w%2 != 0 || h%2 != 0:
		return fmt.Errorf("size %dx%d: width and height must be even (H.264 needs it)", w, h)
	}
	return nil
}

// Presets are the names of the render presets.
var Presets = []string{"docs", "social", "readme"}

// CheckPreset refuses a preset clapper does not have.
func CheckPreset(name string) error {
	if !slices.Contains(Presets, name) {
		return fmt.Errorf("unknown preset %q (use %s)", name, strings.Join(Presets, ", "))
	}
	return nil
}

// VideoPattern is what an output may be called: a plain file name, never a
// path nor hidden, ending in a format clapper renders.
const VideoPattern = `^[^/\\.][^/\\]*\.(mp4|webm|gif|png)$`

var videoRE = regexp.MustCompile(VideoPattern)

// VideoHint says what a video name must be.
const VideoHint = "a plain file name (not hidden) ending in .mp4, .webm, .gif or .png"

// CheckVideo refuses a video name that is a path, hidden, or of a format
// clapper does not render.
func CheckVideo(name string) error {
	if !videoRE.MatchString(name) {
		return fmt.Errorf("video %q is not %s", name, VideoHint)
	}
	return nil
}
