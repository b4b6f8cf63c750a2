package compositor

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Output formats, chosen by file extension.
const (
	formatMP4     = "mp4"
	formatWebM    = "webm"
	formatGIF     = "gif"
	formatPNG     = "png"
	formatPalette = "palette" // the first pass of a GIF
)

// outputSpec is one file an ffmpeg run writes.
type outputSpec struct {
	Format string
	// Path is the file (or, for PNG frames, the printf pattern) written.
	Path   string
	CRF    int
	Preset string
	// Threads is how many threads the encoder uses; 0 leaves it to
	// ffmpeg (a thread for each core and more). Chunks are encoded two
	// at a time, each on one thread (encodeChunks).
	Threads int
	// Chapters is an ffmetadata file whose chapters the MP4 or WebM carries.
	Chapters string
}

// encodeSpec is the plain data one ffmpeg run is built from.
type encodeSpec struct {
	FPS int
	// Ticks is how many frames the run makes (the feed's runs add up to
	// it; its closing frame, one tick past, is trimmed).
	Ticks    int
	Geometry Geometry
	// Overlay is the ASS script drawn over the video; "" draws none.
	Overlay string
	// Background is the letterbox colour when there is no FrameImage.
	Background string
	// FrameImage is the picture under the page (background, shadow, bar),
	// raw yuv420p in BT.709 limited range at the output's size
	// (writeBackground); "" pads with Background instead.
	FrameImage string
	// Zoom, when active, moves the camera with zoompan.
	Zoom *ZoomTrack
	// Palette is the GIF palette (from a palette pass) for GIF outputs.
	Palette string
	// PaletteInGraph makes the GIF outputs' palette in the run itself, by
	// a palettegen beside them: one pass instead of two, each frame
	// decoded, zoomed and overlaid once, but every frame is held until the
	// palette comes at the end (gifOnePass decides). Palette is then "".
	PaletteInGraph bool
	// GraphFile is where the filter graph is written when it is too long
	// for one argument (long zoom expressions); "" keeps it inline.
	GraphFile string
	// Lowres decodes the pictures at a 2^Lowres-th of their size (the
	// JPEG decoder's own reduced transform: a GIF, see gifLowres);
	// Geometry is then the decoded pictures', so that the camera's window
	// is rounded to whole decoded pixels for the page and the overlay
	// alike.
	Lowres int
	// Starts are the ticks (from the run's first) where a new capture
	// frame starts, when they are known before ffmpeg starts (a chunk's
	// runs): a zoomed graph then zooms only the ticks that can change
	// (stillticks.go). nil zooms every tick.
	Starts []int
	// Varied says some picture fed is not the capture's size (the first
	// frame's): unzoomed, the page is then scaled to its size even when
	// the capture's is the page's, so that every picture fills the same
	// box (zoompan's output has one size).
	Varied bool
	// PTSOffset is the output tick the run's first frame is (a chunk of a
	// longer video): the overlay script is drawn at the frames' times in
	// the whole video.
	PTSOffset int
	Outputs   []outputSpec
	// tune is the render's Settings.tune.
	tune tuning
}

// tuning holds the render's switches that a benchmark or a test turns to
// compare; its zero value is what clapper does. It is a field of
// Settings, and the spec of each ffmpeg run carries it.
type tuning struct {
	// zoomEveryTick zooms every tick, not only those that can change
	// (Starts).
	zoomEveryTick bool
	// zoomWholeChunks renders a chunk whose camera shows the whole picture
	// throughout zoomed, like the others, instead of as an unzoomed one
	// (ZoomTrack.whole).
	zoomWholeChunks bool
	// freeMemory lets ffmpeg's allocator hand freed memory back to the
	// kernel (ffmpegMalloc off).
	freeMemory bool
	// maxInlineGraph is the longest filter graph passed as one argument
	// (0: defaultMaxInlineGraph).
	maxInlineGraph int
	// gifOnePassBytes bounds what a GIF made in one pass may hold (0:
	// defaultGIFOnePassBytes; negative: every GIF takes two passes).
	gifOnePassBytes int64
}

// defaultMaxInlineGraph is the longest filter graph passed as one
// argument; Linux refuses a single argument over 128 KiB.
const defaultMaxInlineGraph = 32 << 10

func (t tuning) inlineGraphLimit() int {
	if t.maxInlineGraph > 0 {
		return t.maxInlineGraph
	}
	return defaultMaxInlineGraph
}

func (t tuning) gifOnePassLimit() int64 {
	switch {
	case t.gifOnePassBytes < 0:
		return 0
	case t.gifOnePassBytes > 0:
		return t.gifOnePassBytes
	}
	return defaultGIFOnePassBytes
}

// optionEscape escapes a filter option value (the first of ffmpeg's two
// escaping levels: backslash, quote and colon).
func optionEscape(v string) string {
	return strings.NewReplacer(`\`, `\\`, `'`, `\'`, `:`, `\:`).Replace(v)
}

// graphEscape escapes a whole filter description for the filter graph (the
// second level: backslash, quote, brackets, comma and semicolon).
func graphEscape(v string) string {
	return strings.NewReplacer(`\`, `\\`, `'`, `\'`, `[`, `\[`, `]`, `\]`, `,`, `\,`, `;`, `\;`).Replace(v)
}

// filter formats one filter with named options in the order given.
func filter(name string, kv ...string) string {
	var b strings.Builder
	b.WriteString(name)
	for i := 0; i+1 < len(kv); i += 2 {
		if i == 0 {
			b.WriteByte('=')
		} else {
			b.WriteByte(':')
		}
		b.WriteString(kv[i])
		b.WriteByte('=')
		b.WriteString(optionEscape(kv[i+1]))
	}
	return graphEscape(b.String())
}

func itoa(n int) string { return strconv.Itoa(n) }

// decodedSize is a picture side of n pixels decoded at lowres: the JPEG
// decoder rounds up. Pure.
func decodedSize(n, lowres int) int { return (n + 1<<lowres - 1) >> lowres }

// gifLowres is how far a GIF's pictures may be decoded below their size
// (0 to 2): as far as the page, at the camera's closest, still needs no
// enlarging. A GIF is small (800 pixels wide by default) and dithered, and
// decoding is most of its work: at scale 2 each picture
// would otherwise be decoded at four times the pixels it is shown at.
// Pure.
func gifLowres(g Geometry, maxZoom float64) int {
	n := 0
	for n < 2 && float64(decodedSize(g.CaptureW, n+1)) >= float64(g.ScaledW)*maxZoom && float64(decodedSize(g.CaptureH, n+1)) >= float64(g.ScaledH)*maxZoom {
		n++
	}
	return n
}

// pictureColour converts the take's pictures, JPEGs (the BT.601 matrix,
// full range), to the BT.709 matrix and limited range the videos are
// tagged with; primaries and transfer are sRGB's on both sides, so only
// the matrix and the range change. It is exact where swscale's conversion
// is not (full-range grey 128 becomes 126 here, 125 there; neutral chroma
// stays 128 here, 127 there) and cheaper (docs/internals.md).
const pictureColour = "colorspace=ispace=bt470bg:irange=pc:iprimaries=bt709:itrc=bt709:space=bt709:range=tv:primaries=bt709:trc=bt709"

// buildArgs returns ffmpeg's arguments (without the program name) for one
// run: captured JPEGs on stdin, each once per run of ticks in a Matroska
// stream (input 0, feed.go), made FPS and Ticks frames by the fps and trim
// filters after the work that is the same for every tick of a run (the
// scaling and the colours; zoompan, which moves each tick, comes after
// them), the frame picture and the palette as further inputs, one filter
// graph that places the page (zoomed, in BT.709 limited range, letterboxed
// or framed) and draws the overlays, then each output with its encoder. It
// is pure. When the graph is longer than maxInlineGraph the arguments name
// sp.GraphFile instead, and the caller writes graph there.
func buildArgs(sp encodeSpec) (args []string, graph string, err error) {
	if len(sp.Outputs) == 0 {
		return nil, "", fmt.Errorf("build ffmpeg arguments: no outputs")
	}
	if sp.Ticks <= 0 {
		return nil, "", fmt.Errorf("build ffmpeg arguments: no frames to make")
	}
	g := sp.Geometry
	fps := itoa(sp.FPS)
	args = []string{"-hide_banner", "-nostats", "-loglevel", "error", "-y"}
	if sp.Lowres > 0 {
		args = append(args, "-lowres", itoa(sp.Lowres))
	}
	args = append(args, "-f", "matroska", "-reinit_filter", "0", "-i", "pipe:0")
	nIn := 1
	bgIn, palIn := -1, -1
	if sp.FrameImage != "" {
		args = append(args, "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", fmt.Sprintf("%dx%d", g.OutW, g.OutH), "-framerate", fps, "-i", sp.FrameImage)
		bgIn, nIn = nIn, nIn+1
	}
	if sp.Palette != "" {
		args = append(args, "-i", sp.Palette)
		palIn, nIn = nIn, nIn+1
	}
	chapIn := map[string]int{}
	for _, o := range sp.Outputs {
		if o.Chapters != "" {
			if _, ok := chapIn[o.Chapters]; !ok {
				args = append(args, "-f", "ffmetadata", "-i", o.Chapters)
				chapIn[o.Chapters], nIn = nIn, nIn+1
			}
		}
	}

	var chains []string
	page := []string{}
	// resize keeps the range it is given, full ("pc": a JPEG's, before
	// pictureColour) or limited ("tv", after it): left to itself, swscale
	// narrows a full range, and pictureColour would narrow it again.
	resize := func(w, h int, rng string) string {
		return filter("scale", "w", itoa(w), "h", itoa(h), "flags", "bicubic", "out_range", rng)
	}
	// ticks repeats each frame for its run's ticks, and drops the closing
	// frame.
	ticks := []string{filter("fps", "fps", fps, "start_time", "0"), filter("trim", "end_frame", itoa(sp.Ticks))}
	zoomed := sp.Zoom != nil && sp.Zoom.Active()
	// still: a zoomed chunk zooms only the ticks that can change, and
	// repeats each picture after it (stillticks.go).
	still := zoomed && sp.Starts != nil && !sp.tune.zoomEveryTick
	var kept []int
	switch {
	case zoomed:
		tick := "on"
		if still {
			// Each kept tick named by its time (zoompan numbers the
			// frames it is given).
			kept, tick = keptTicks(sp.Starts, sp.Zoom, sp.Ticks), fmt.Sprintf("round(it*%d)", sp.FPS)
			page = append(page, ticks[0], filter("select", "expr", selectExpr(kept)))
		} else {
			page = append(page, ticks...)
		}
		z, x, y := sp.Zoom.zoompanExprs(g, tick)
		// zoompan rebuilds its scaler on every frame: let it work at the
		// capture's size at most, and upscale after it with a scaler that
		// lasts, which costs far less at 1080p.
		zw, zh := g.ScaledW, g.ScaledH
		if zw > g.CaptureW || zh > g.CaptureH {
			zw, zh = g.CaptureW&^1, g.CaptureH&^1
		}
		page = append(page, filter("zoompan", "z", z, "x", x, "y", y, "d", "1",
			"s", fmt.Sprintf("%dx%d", zw, zh), "fps", fps))
		if still {
			page = append(page, filter("setpts", "expr", tickPTSExpr(kept, sp.FPS)))
		}
		page = append(page, pictureColour)
		if zw != g.ScaledW || zh != g.ScaledH {
			page = append(page, resize(g.ScaledW, g.ScaledH, "tv"))
		}
	case g.CaptureW == g.ScaledW && g.CaptureH == g.ScaledH && !sp.Varied:
		page = append(page, pictureColour)
	case g.CaptureW*g.CaptureH < g.ScaledW*g.ScaledH && g.CaptureW%2 == 0 && g.CaptureH%2 == 0:
		// The colours are converted at the smaller size: before
		// enlarging, after shrinking (a scale-2 capture, a GIF). The
		// colorspace filter takes even sizes only, and scaled sizes are.
		page = append(page, pictureColour, resize(g.ScaledW, g.ScaledH, "tv"))
	default:
		page = append(page, resize(g.ScaledW, g.ScaledH, "pc"), pictureColour)
	}
	if g.ScaledW != g.ContentW || g.ScaledH != g.ContentH {
		page = append(page, filter("crop", "w", itoa(g.ContentW), "h", itoa(g.ContentH), "x", itoa(g.CropX), "y", itoa(g.CropY)))
	}
	page = append(page, "format=yuv420p")
	if !zoomed || still {
		page = append(page, ticks...)
	}
	last := "page"
	if bgIn >= 0 {
		// The frame picture is in the videos' colours already (Go
		// converts it once, not each ffmpeg run): it is only tagged so.
		chains = append(chains, fmt.Sprintf("[%d:v]setparams=range=tv:color_primaries=bt709:color_trc=bt709:colorspace=bt709,loop=loop=-1:size=1:start=0[bg]", bgIn))
		chains = append(chains, "[0:v]"+strings.Join(page, ",")+"[page]")
		chains = append(chains, fmt.Sprintf("[bg][page]overlay=x=%d:y=%d:shortest=1:eof_action=endall[framed]", g.ContentX, g.ContentY))
		last = "framed"
	} else {
		if g.ContentW != g.OutW || g.ContentH != g.OutH {
			page = append(page, filter("pad", "w", itoa(g.OutW), "h", itoa(g.OutH), "x", itoa(g.ContentX), "y", itoa(g.ContentY), "color", sp.Background))
		}
		chains = append(chains, "[0:v]"+strings.Join(page, ",")+"[page]")
	}
	tail := []string{}
	if sp.Overlay != "" {
		if sp.PTSOffset > 0 {
			tail = append(tail, fmt.Sprintf("setpts=PTS+round(%d/(%d*TB))", sp.PTSOffset, sp.FPS))
		}
		tail = append(tail, filter("ass", "filename", sp.Overlay))
		if sp.PTSOffset > 0 {
			tail = append(tail, "setpts=PTS-STARTPTS")
		}
	}
	// With the palette in the graph, the GIF outputs (the same picture)
	// share one paletteuse, split after it: ffmpeg holds one copy of the
	// frames until the palette comes, however many GIFs are written.
	inGraph := sp.PaletteInGraph && slices.ContainsFunc(sp.Outputs, func(o outputSpec) bool { return o.Format == formatGIF })
	var outs, gifOuts []string
	for i, o := range sp.Outputs {
		if inGraph && o.Format == formatGIF {
			gifOuts = append(gifOuts, fmt.Sprintf("[o%d]", i))
			continue
		}
		outs = append(outs, fmt.Sprintf("[v%d]", i))
	}
	if inGraph {
		outs = append(outs, "[vg]", "[vp]")
	}
	if len(outs) > 1 {
		tail = append(tail, "split="+itoa(len(outs)))
	}
	if len(tail) == 0 {
		tail = append(tail, "null")
	}
	chains = append(chains, "["+last+"]"+strings.Join(tail, ",")+strings.Join(outs, ""))
	if inGraph {
		use := "[vg][pal]paletteuse=dither=bayer:bayer_scale=4:diff_mode=rectangle"
		if len(gifOuts) > 1 {
			use += ",split=" + itoa(len(gifOuts))
		}
		chains = append(chains, "[vp]palettegen=stats_mode=diff[pal]", use+strings.Join(gifOuts, ""))
	}
	for i, o := range sp.Outputs {
		switch o.Format {
		case formatMP4, formatWebM, formatPNG:
			pf := "yuv420p"
			if o.Format == formatPNG {
				pf = "rgb24"
			}
			chains = append(chains, fmt.Sprintf("[v%d]format=%s[o%d]", i, pf, i))
		case formatPalette:
			chains = append(chains, fmt.Sprintf("[v%d]palettegen=stats_mode=diff[o%d]", i, i))
		case formatGIF:
			if inGraph {
				continue // above
			}
			if palIn < 0 {
				return nil, "", fmt.Errorf("build ffmpeg arguments: gif output %s without a palette", o.Path)
			}
			chains = append(chains, fmt.Sprintf("[v%d][%d:v]paletteuse=dither=bayer:bayer_scale=4:diff_mode=rectangle[o%d]", i, palIn, i))
		default:
			return nil, "", fmt.Errorf("build ffmpeg arguments: unknown format %q", o.Format)
		}
	}
	graph = strings.Join(chains, ";")
	if len(graph) > sp.tune.inlineGraphLimit() && sp.GraphFile != "" {
		args = append(args, "-filter_complex_script", sp.GraphFile)
	} else {
		args = append(args, "-filter_complex", graph)
	}

	for i, o := range sp.Outputs {
		args = append(args, "-map", fmt.Sprintf("[o%d]", i), "-an")
		if ci, ok := chapIn[o.Chapters]; ok && o.Chapters != "" {
			args = append(args, "-map_metadata", itoa(ci), "-map_chapters", itoa(ci))
		}
		tags := []string{"-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709", "-color_range", "tv"}
		switch o.Format {
		case formatMP4:
			if o.Threads > 0 {
				args = append(args, "-threads", itoa(o.Threads))
			}
			args = append(args, "-c:v", "libx264", "-preset", o.Preset)
			if noBFrames(o.Preset) {
				args = append(args, "-bf", "0")
			}
			args = append(args, "-crf", itoa(o.CRF), "-pix_fmt", "yuv420p", "-r", fps)
			args = append(args, tags...)
			args = append(args, "-movflags", "+faststart", "-f", "mp4", o.Path)
		case formatWebM:
			args = append(args, "-c:v", "libvpx-vp9", "-crf", itoa(webmCRF(o.CRF)), "-b:v", "0", "-deadline", "good", "-cpu-used", "5", "-row-mt", "1", "-pix_fmt", "yuv420p", "-r", fps)
			args = append(args, tags...)
			args = append(args, "-f", "webm", o.Path)
		case formatPNG:
			args = append(args, "-c:v", "png", "-r", fps, "-start_number", "1", "-f", "image2", o.Path)
		case formatPalette:
			args = append(args, "-frames:v", "1", "-update", "1", "-f", "image2", o.Path)
		case formatGIF:
			args = append(args, "-r", fps, "-loop", "0", "-f", "gif", o.Path)
		}
	}
	return args, graph, nil
}

// noBFrames reports whether an x264 preset encodes without B-frames in
// clapper: the fast presets clapper chooses itself (defaultX264Preset),
// whoever names them; a slower preset is the way to B-frames. A
// screen recording is mostly still or panned pictures, where B-frames cost
// the encoder more than they save: without them, renders of the bench
// page and of the quickstart took less CPU time and made smaller files at
// about the same SSIM (docs/internals.md, "x264 settings"). Ultrafast has
// none anyway; the slower presets keep x264's choice. Pure.
func noBFrames(preset string) bool { return preset == "superfast" || preset == "veryfast" }

// graphReads are the files sp's filter graph reads that its arguments do
// not name (the overlay script of the ass filter): a chunk's cache key
// digests them with the files the arguments name. Pure.
func graphReads(sp encodeSpec) []string {
	if sp.Overlay == "" {
		return nil
	}
	return []string{sp.Overlay}
}

// webmCRF maps an x264 CRF to a comparable VP9 CRF (x264 20 -> VP9 32).
func webmCRF(crf int) int {
	v := crf + 12
	if v > 63 {
		v = 63
	}
	return v
}
