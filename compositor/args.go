package compositor

import (
	"fmt"
	"strconv"
	"strings"

	ffmpeg "github.com/u2takey/ffmpeg-go"
)

// encodeSpec is the plain data the ffmpeg argument list is built from.
type encodeSpec struct {
	FPS      int
	Geometry Geometry
	// Overlay is the ASS script drawn over the video; "" draws none.
	Overlay    string
	Background string
	CRF        int
	Preset     string
	// Output is the file ffmpeg writes.
	Output string
}

// buildArgs returns ffmpeg's arguments (without the program name) for one
// encode: captured JPEGs on stdin at FPS, scaled into the output picture with
// BT.709 limited-range colour, overlays drawn by libass, H.264 yuv420p MP4
// with the index up front. It is pure.
//
// The graph is built with ffmpeg-go's chained form and read back with
// GetArgs, which does the filter-graph escaping; ffmpeg-go panics on a
// malformed graph, which is turned into an error here.
func buildArgs(sp encodeSpec) (args []string, err error) {
	defer func() {
		if r := recover(); r != nil {
			args, err = nil, fmt.Errorf("build ffmpeg arguments: %v", r)
		}
	}()
	g := sp.Geometry
	in := ffmpeg.Input("pipe:0", ffmpeg.KwArgs{
		"f":         "image2pipe",
		"c:v":       "mjpeg",
		"framerate": strconv.Itoa(sp.FPS),
	})
	v := in.Filter("scale", nil, ffmpeg.KwArgs{
		"w":                strconv.Itoa(g.ContentW),
		"h":                strconv.Itoa(g.ContentH),
		"flags":            "bicubic",
		"out_color_matrix": "bt709",
		"out_range":        "tv",
	})
	if g.ContentW != g.OutW || g.ContentH != g.OutH {
		v = v.Filter("pad", nil, ffmpeg.KwArgs{
			"w":     strconv.Itoa(g.OutW),
			"h":     strconv.Itoa(g.OutH),
			"x":     strconv.Itoa(g.ContentX),
			"y":     strconv.Itoa(g.ContentY),
			"color": optionEscape(sp.Background),
		})
	}
	if sp.Overlay != "" {
		v = v.Filter("ass", nil, ffmpeg.KwArgs{"filename": optionEscape(sp.Overlay)})
	}
	v = v.Filter("format", ffmpeg.Args{"yuv420p"})
	out := v.Output(sp.Output, ffmpeg.KwArgs{
		"f":               "mp4",
		"c:v":             "libx264",
		"preset":          sp.Preset,
		"crf":             strconv.Itoa(sp.CRF),
		"pix_fmt":         "yuv420p",
		"r":               strconv.Itoa(sp.FPS),
		"colorspace":      "bt709",
		"color_primaries": "bt709",
		"color_trc":       "bt709",
		"color_range":     "tv",
		"movflags":        "+faststart",
		"an":              "",
	}).GlobalArgs("-hide_banner", "-nostats", "-loglevel", "error").OverWriteOutput()
	return out.GetArgs(), nil
}

// optionEscape escapes a filter option value (the first of ffmpeg's two
// escaping levels: backslash, quote and colon). ffmpeg-go escapes keys at this
// level but not values, then applies the filter-graph level itself.
func optionEscape(v string) string {
	return strings.NewReplacer(`\`, `\\`, `'`, `\'`, `:`, `\:`).Replace(v)
}
