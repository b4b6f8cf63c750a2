package viewer

import (
	"bufio"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/clapper-dev/clapper/timeline"
)

//go:embed assets/report.html
var pageHTML string

//go:embed assets/report.css
var pageCSS string

//go:embed assets/report.js
var pageJS string

// Frame modes.
const (
	// ModeEmbedded: every frame inside the report, as received.
	ModeEmbedded = "embedded"
	// ModeFolder: frames in a folder beside the report, referenced
	// relatively; the filmstrip stays inside.
	ModeFolder = "folder"
)

// DefaultEmbedBudget is the most frame bytes embedded before the report
// keeps its frames beside it: a report this size still mails.
const DefaultEmbedBudget = 24 << 20

// Options tune a report.
type Options struct {
	// Frames is ModeEmbedded, ModeFolder or "" (choose by size).
	Frames string
	// EmbedBudget bounds the frame bytes embedded when choosing (0: the
	// default).
	EmbedBudget int64
	// Manifest is the take's manifest, if any; Verified says what
	// verification found, in words.
	Manifest *timeline.Manifest
	Verified string
	// Progress, when set, is told how many frames are done.
	Progress func(done, total int)
	// Context, when set, stops the report when it ends (Ctrl-C): what
	// was written goes, and an old report stays as it was.
	Context context.Context
}

// frameReader reads a frame's picture as the index gives it.
type frameReader func(timeline.Frame) ([]byte, error)

// Result says what was written.
type Result struct {
	Path   string
	Mode   string
	Bytes  int64
	Frames int
	Thumbs int
	// FramesDir is the folder of folder mode, "" otherwise.
	FramesDir string
}

// maxThumbs bounds the filmstrip, whatever the take's length.
const maxThumbs = 240

// pickThumbs chooses the frames the filmstrip shows: at most maxThumbs, at
// least minGap ms apart, always the first. Pure.
func pickThumbs(frames []Frame, durationMs float64) []int {
	gap := max(250, durationMs/maxThumbs)
	var out []int
	last := -1e18
	for i, f := range frames {
		if f.AtMs-last >= gap || i == 0 {
			out = append(out, i)
			last = f.AtMs
		}
	}
	return out
}

// chooseMode picks how frames travel: embedded while they fit the budget.
// Pure.
func chooseMode(asked string, frameBytes, budget int64) (string, error) {
	switch asked {
	case ModeEmbedded, ModeFolder:
		return asked, nil
	case "", "auto":
		if budget <= 0 {
			budget = DefaultEmbedBudget
		}
		if frameBytes <= budget {
			return ModeEmbedded, nil
		}
		return ModeFolder, nil
	}
	return "", fmt.Errorf("frames %q: use embedded, folder or auto", asked)
}

// FramesDirFor is the folder beside report out that holds its frames in
// folder mode: report.html → report_frames.
func FramesDirFor(out string) string {
	return strings.TrimSuffix(out, filepath.Ext(out)) + "_frames"
}

// Write writes the take's report to out (a temporary file renamed into
// place). Memory stays bounded by one frame at a time plus the index.
func Write(tk *timeline.Take, out string, o Options) (*Result, error) {
	ctx := o.Context
	if ctx == nil {
		ctx = context.Background()
	}
	// Every frame is read through read, which stops once ctx ends.
	read := func(fr timeline.Frame) ([]byte, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return tk.ReadFrame(fr)
	}
	d := Model(tk.Timeline)
	if m := o.Manifest; m != nil {
		d.Chromium, d.Revision = m.Chromium, m.Revision
	}
	d.Verified = o.Verified
	var frameBytes int64
	// The frames' files as the index gives them: ReadFrame reads no more
	// than the index's size of each.
	var files []timeline.Frame
	for fr, err := range tk.Frames() {
		if err != nil {
			return nil, err
		}
		if fr.Seeded {
			d.Accounting.Seeded++
		}
		d.Frames = append(d.Frames, Frame{Seq: fr.Seq, AtMs: ms(fr.Source, tk.Timeline.Start), Doc: fr.Document, Tab: fr.Tab, W: fr.Width, H: fr.Height, Thumb: -1})
		files = append(files, timeline.Frame{Seq: fr.Seq, File: fr.File, Bytes: fr.Bytes})
		frameBytes += int64(fr.Bytes)
	}
	mode, err := chooseMode(o.Frames, frameBytes, o.EmbedBudget)
	if err != nil {
		return nil, err
	}
	d.Mode = mode
	res := &Result{Path: out, Mode: mode, Frames: len(d.Frames)}
	thumbs := pickThumbs(d.Frames, d.DurationMs)
	for k, i := range thumbs {
		d.Frames[i].Thumb = k
	}
	res.Thumbs = len(thumbs)
	if mode == ModeFolder {
		dir := FramesDirFor(out)
		res.FramesDir = dir
		d.FramesDir = filepath.Base(dir)
		if err := copyFrames(read, files, d.Frames, dir, o.Progress); err != nil {
			return nil, err
		}
		// Staged beside the folder until the page is written too: a
		// report that fails leaves the old report and its frames as
		// they were.
		defer os.RemoveAll(dir + ".tmp")
	}
	tmp := out + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return nil, fmt.Errorf("write report: %w", err)
	}
	defer os.Remove(tmp)
	w := bufio.NewWriterSize(f, 256<<10)
	err = writePage(w, read, d, files, thumbs, o.Progress)
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("write report: %w", err)
	}
	if mode == ModeFolder {
		err = publishWithFrames(tmp, out, res.FramesDir)
	} else {
		err = os.Rename(tmp, out)
	}
	if err != nil {
		return nil, fmt.Errorf("write report: %w", err)
	}
	if st, err := os.Stat(out); err == nil {
		res.Bytes = st.Size()
	}
	return res, nil
}

// CSP is the report's Content-Security-Policy for the given script and
// style: nothing remote, no inline handlers, only the report's own code.
func CSP(js, css string) string {
	h := func(s string) string {
		sum := sha256.Sum256([]byte(s))
		return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	}
	return "default-src 'none'; script-src " + h(js) + "; style-src " + h(css) +
		"; img-src data: file:; connect-src 'none'; media-src 'none'; font-src 'none'; object-src 'none'; frame-src 'none'; worker-src 'none'; base-uri 'none'; form-action 'none'"
}

// writePage streams the report: the page, the take's data as JSON, the
// filmstrip and (embedded mode) the frames, then the script.
func writePage(w io.Writer, read frameReader, d Data, files []timeline.Frame, thumbs []int, progress func(int, int)) error {
	head, tail, ok := strings.Cut(pageHTML, "<!--DATA-->")
	if !ok {
		return fmt.Errorf("report template has no data marker")
	}
	head = strings.Replace(head, "{{CSP}}", htmlAttr(CSP(pageJS, pageCSS)), 1)
	head = strings.Replace(head, "{{STYLE}}", pageCSS, 1)
	head = strings.Replace(head, "{{TITLE}}", htmlText(d.Name+" — clapper take"), 1)
	tail = strings.Replace(tail, "{{SCRIPT}}", pageJS, 1)
	if _, err := io.WriteString(w, head); err != nil {
		return err
	}
	// encoding/json escapes <, > and & in strings: the data cannot end
	// its script element.
	b, err := json.Marshal(d)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, `<script type="application/json" id="take">%s</script>`+"\n", b)
	io.WriteString(w, `<script type="application/json" id="thumbs">[`)
	for k, i := range thumbs {
		fr, err := read(files[i])
		if err != nil {
			return err
		}
		th, err := thumbnail(fr, ThumbWidth)
		if err != nil {
			return fmt.Errorf("frame %d: %w", d.Frames[i].Seq, err)
		}
		if k > 0 {
			io.WriteString(w, ",")
		}
		writeB64(w, th)
		if progress != nil && d.Mode == ModeFolder {
			progress(k+1, len(thumbs))
		}
	}
	io.WriteString(w, "]</script>\n")
	if d.Mode == ModeEmbedded {
		io.WriteString(w, `<script type="application/json" id="full">[`)
		for i := range d.Frames {
			fr, err := read(files[i])
			if err != nil {
				return err
			}
			if i > 0 {
				io.WriteString(w, ",")
			}
			writeB64(w, fr)
			if progress != nil {
				progress(i+1, len(d.Frames))
			}
		}
		io.WriteString(w, "]</script>\n")
	}
	_, err = io.WriteString(w, tail)
	return err
}

func writeB64(w io.Writer, b []byte) {
	io.WriteString(w, `"`)
	enc := base64.NewEncoder(base64.StdEncoding, w)
	enc.Write(b)
	enc.Close()
	io.WriteString(w, `"`)
}

// copyFrames writes the frames into a fresh folder beside the report
// (a temporary one renamed into place) and points each frame at its file.
func copyFrames(read frameReader, files []timeline.Frame, frames []Frame, dir string, progress func(int, int)) error {
	// The frames go to dir.tmp; publishWithFrames puts them in place with
	// the page.
	tmp := dir + ".tmp"
	for _, d := range []string{dir, tmp, dir + ".old"} {
		if err := replaceable(d); err != nil {
			return err
		}
	}
	os.RemoveAll(tmp)
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	for i := range frames {
		b, err := read(files[i])
		if err != nil {
			os.RemoveAll(tmp)
			return err
		}
		name := fmt.Sprintf("%06d.jpg", frames[i].Seq)
		if err := os.WriteFile(filepath.Join(tmp, name), b, 0o644); err != nil {
			os.RemoveAll(tmp)
			return err
		}
		frames[i].Src = url.PathEscape(filepath.Base(dir)) + "/" + name
		if progress != nil {
			progress(i+1, len(frames))
		}
	}
	return nil
}

// publishWithFrames puts the page written to tmp at out and the frames
// copyFrames staged in dir.tmp at dir, together: the old frames are moved
// aside (dir.old) and come back if either rename fails, so a report never
// points at another take's frames.
func publishWithFrames(tmp, out, dir string) error {
	old := dir + ".old"
	if err := os.RemoveAll(old); err != nil {
		return err
	}
	hadOld := os.Rename(dir, old) == nil
	restore := func() {
		if hadOld {
			os.RemoveAll(dir)
			os.Rename(old, dir)
		}
	}
	if err := os.Rename(dir+".tmp", dir); err != nil {
		restore()
		return err
	}
	if err := os.Rename(tmp, out); err != nil {
		restore()
		return err
	}
	return os.RemoveAll(old)
}

// frameName is how copyFrames names a frame.
var frameName = regexp.MustCompile(`^[0-9]{6,}\.jpg$`)

// replaceable refuses to let copyFrames remove a folder it did not write:
// one that is there must hold only frames named as copyFrames names them.
func replaceable(dir string) error {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s is in the way of the report's frames: %w (remove it, or pass another -o)", dir, err)
	}
	for _, e := range ents {
		if !e.Type().IsRegular() || !frameName.MatchString(e.Name()) {
			return fmt.Errorf("%s holds %s, which clapper did not write there: not replacing it (remove it, or pass another -o)", dir, e.Name())
		}
	}
	return nil
}

var htmlReplacer = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;")

func htmlText(s string) string { return htmlReplacer.Replace(s) }
func htmlAttr(s string) string { return htmlReplacer.Replace(s) }
