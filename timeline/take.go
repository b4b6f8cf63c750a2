package timeline

import (
	"github.com/clapper-dev/clapper/internal/plainfile"
	"time"

	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"strings"
)

// File names inside a take folder.
const (
	TimelineFile = "timeline.json"
	FramesFile   = "frames.jsonl"
	FramesDir    = "frames"
	ScriptFile   = "script.yaml"
)

// ErrNotTake is returned when a folder holds no timeline.json.
var ErrNotTake = errors.New("not a take: no " + TimelineFile)

// FrameLog appends delivered frames to a take's frames.jsonl as they are
// spooled, so that a crash keeps every frame indexed so far. It is used by
// one goroutine at a time.
type FrameLog struct {
	f  *os.File
	bw *bufio.Writer
}

// CreateTake makes the take folder dir (and frames/) and opens its frame log.
// An existing take in dir is replaced.
func CreateTake(dir string) (*FrameLog, error) {
	// The old manifest goes first: a manifest present means the take was
	// finished, so a run killed from here on must leave a take without one
	// (opened with a warning, or recovered), never one sealing the files
	// of the run before.
	for _, name := range []string{ManifestFile, ManifestFile + ".tmp", TimelineFile, TimelineFile + ".tmp", FramesFile, JournalFile} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("clear old take: %w", err)
		}
	}
	if err := os.RemoveAll(filepath.Join(dir, FramesDir)); err != nil {
		return nil, fmt.Errorf("clear old frames: %w", err)
	}
	if err := os.MkdirAll(filepath.Join(dir, FramesDir), 0o755); err != nil {
		return nil, fmt.Errorf("create take folder: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, FramesFile), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create frame log: %w", err)
	}
	return &FrameLog{f: f, bw: bufio.NewWriterSize(f, 16<<10)}, nil
}

// Append writes one frame record. Records are flushed on Flush and Close.
func (l *FrameLog) Append(fr Frame) error {
	b, err := json.Marshal(fr)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = l.bw.Write(b)
	return err
}

// Flush pushes buffered records to the file.
func (l *FrameLog) Flush() error { return l.bw.Flush() }

// Close flushes and closes the log.
func (l *FrameLog) Close() error {
	err := l.bw.Flush()
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// FramePath returns the file name, relative to the take, for frame seq.
func FramePath(seq int64) string {
	return fmt.Sprintf("%s/%06d.jpg", FramesDir, seq)
}

// WriteTimeline writes timeline.json atomically (temp file, then rename).
func WriteTimeline(dir string, t *Timeline) error {
	t.Version = Version
	b, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return fmt.Errorf("encode timeline: %w", err)
	}
	tmp := filepath.Join(dir, TimelineFile+".tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write timeline: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, TimelineFile)); err != nil {
		return fmt.Errorf("write timeline: %w", err)
	}
	return nil
}

// Take is an opened take folder.
type Take struct {
	Dir      string
	Timeline *Timeline
}

// Open reads and checks a take folder's timeline. Frames are read lazily with
// Frames, so opening a long take costs little memory.
func Open(dir string) (*Take, error) {
	b, err := plainfile.ReadFile(filepath.Join(dir, TimelineFile), TimelineFile, plainfile.Timeline, false)
	if errors.Is(err, os.ErrNotExist) {
		if _, jerr := os.Stat(filepath.Join(dir, JournalFile)); jerr == nil {
			// The run ended before it wrote its record: rebuild it, in memory.
			t, err := Recover(dir)
			if err != nil {
				return nil, err
			}
			return &Take{Dir: dir, Timeline: t}, nil
		}
		return nil, fmt.Errorf("%s: %w (pass the take folder, e.g. out/quickstart/take)", dir, ErrNotTake)
	}
	if err != nil {
		return nil, fmt.Errorf("read take: %w", err)
	}
	var probe struct {
		Version int `json:"version"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return nil, fmt.Errorf("%s: timeline.json is not valid JSON: %w", dir, err)
	}
	if probe.Version != Version && probe.Version != 1 {
		return nil, fmt.Errorf("%s: timeline version %d is not supported (this clapper reads versions 1 to %d)", dir, probe.Version, Version)
	}
	var t Timeline
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("%s: timeline.json: %w", dir, err)
	}
	if t.Version == 1 {
		upgradeV1(&t)
	}
	if err := checkRanges(&t); err != nil {
		return nil, fmt.Errorf("%s: %s: %w", dir, TimelineFile, err)
	}
	if !t.Capture.Frames.Balanced() {
		a := t.Capture.Frames
		return nil, fmt.Errorf("%s: frame accounting does not balance: received %d != delivered %d + overflow %d + late %d + duplicates %d + rejected %d",
			dir, a.Received, a.Delivered, a.Overflow, a.Late, a.Duplicates, a.Rejected)
	}
	return &Take{Dir: dir, Timeline: &t}, nil
}

// Frames iterates over the delivered frames in delivery order, reading
// frames.jsonl as a stream. A malformed line or a frame path that leaves the
// take ends the iteration with an error.
func (tk *Take) Frames() iter.Seq2[Frame, error] {
	return func(yield func(Frame, error) bool) {
		f, err := plainfile.Open(filepath.Join(tk.Dir, FramesFile), FramesFile, plainfile.Frames, false)
		if err != nil {
			yield(Frame{}, fmt.Errorf("read frames: %w", err))
			return
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		line := 0
		for sc.Scan() {
			line++
			if len(strings.TrimSpace(sc.Text())) == 0 {
				continue
			}
			var fr Frame
			if err := json.Unmarshal(sc.Bytes(), &fr); err != nil {
				// A torn last line (crash mid-write) ends the stream quietly.
				if isLastLine(sc) {
					return
				}
				yield(Frame{}, fmt.Errorf("%s line %d: %w", FramesFile, line, err))
				return
			}
			if err := checkRel(fr.File); err != nil {
				yield(Frame{}, fmt.Errorf("%s line %d: %w", FramesFile, line, err))
				return
			}
			if !yield(fr, nil) {
				return
			}
		}
		if err := sc.Err(); err != nil && err != io.EOF {
			yield(Frame{}, fmt.Errorf("read frames: %w", err))
		}
	}
}

func isLastLine(sc *bufio.Scanner) bool {
	return !sc.Scan()
}

// ReadFrame returns the bytes of a frame's image. A frame file that is a
// symbolic link, or lies under one inside the take, is refused: a take
// holds its frames as plain files, and a link could show anything on the
// machine as a frame.
func (tk *Take) ReadFrame(fr Frame) ([]byte, error) {
	if err := checkRel(fr.File); err != nil {
		return nil, err
	}
	f, err := tk.openFrame(fr.File)
	if errors.Is(err, os.ErrNotExist) {
		if m, merr := ReadManifest(tk.Dir); merr == nil {
			if _, ok := m.prunedSet()[fr.File]; ok {
				return nil, fmt.Errorf("frame %d: %w", fr.Seq, ErrPruned)
			}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("frame %d: %w", fr.Seq, err)
	}
	defer f.Close()
	// Bounded by the size the index gives (or MaxFrameBytes): a frame
	// file grown past it is read no further.
	limit := int64(MaxFrameBytes)
	if fr.Bytes > 0 {
		limit = int64(fr.Bytes)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("frame %d: %w", fr.Seq, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("frame %d: %s is larger than the %d bytes %s says", fr.Seq, fr.File, limit, FramesFile)
	}
	return b, nil
}

// MaxFrameBytes bounds a frame read whose size the caller does not know; a
// screencast JPEG is far smaller.
const MaxFrameBytes = 64 << 20

// ErrSymlink is returned for a frame file that is, or lies under, a
// symbolic link inside the take.
var ErrSymlink = errors.New("is a symbolic link: a take holds its frames as plain files")

// openFrame opens the regular file rel (checked by checkRel) inside the
// take without following a symbolic link at any step below the take's
// folder.
func (tk *Take) openFrame(rel string) (*os.File, error) {
	parts := strings.Split(filepath.ToSlash(filepath.Clean(filepath.FromSlash(rel))), "/")
	p := tk.Dir
	for _, d := range parts[:len(parts)-1] {
		p = filepath.Join(p, d)
		st, err := os.Lstat(p)
		if err != nil {
			return nil, err
		}
		if st.Mode()&os.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s %w", filepath.ToSlash(strings.TrimPrefix(p, tk.Dir+string(filepath.Separator))), ErrSymlink)
		}
	}
	f, err := plainfile.Open(filepath.Join(p, parts[len(parts)-1]), rel, plainfile.Frame, false)
	if errors.Is(err, plainfile.ErrSymlink) {
		return nil, fmt.Errorf("%s %w", rel, ErrSymlink)
	}
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = fmt.Errorf("%s is not a regular file", rel)
		}
		return nil, err
	}
	return f, nil
}

// checkFramesDir refuses a frames/ folder that is, or holds, a symbolic
// link.
func (tk *Take) checkFramesDir() error {
	dir := filepath.Join(tk.Dir, FramesDir)
	st, err := os.Lstat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil // a take without frames: the count check speaks
	}
	if err != nil {
		return err
	}
	if st.Mode()&os.ModeSymlink != 0 {
		return fmt.Errorf("%s %w", FramesDir, ErrSymlink)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("read %s: %w", FramesDir, err)
	}
	for _, e := range ents {
		if e.Type()&os.ModeSymlink != 0 {
			return fmt.Errorf("%s/%s %w", FramesDir, e.Name(), ErrSymlink)
		}
	}
	return nil
}

// checkRel refuses a path that is absolute or climbs out of the take.
func checkRel(p string) error {
	if p == "" {
		return errors.New("frame has no file")
	}
	c := filepath.ToSlash(filepath.Clean(filepath.FromSlash(p)))
	if filepath.IsAbs(p) || strings.HasPrefix(p, "/") || c == ".." || strings.HasPrefix(c, "../") {
		return fmt.Errorf("frame path %q leaves the take", p)
	}
	return nil
}

// Validate checks that every delivered frame listed exists as a plain file
// with its recorded size, that delivered source times strictly increase,
// that the count matches the accounting, and that nothing in frames/ is a
// symbolic link.
func (tk *Take) Validate() error {
	if err := tk.checkFramesDir(); err != nil {
		return err
	}
	var n int64
	last := Time(0)
	first := true
	for fr, err := range tk.Frames() {
		if err != nil {
			return err
		}
		n++
		f, err := tk.openFrame(fr.File)
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("frame %d: missing file %s", fr.Seq, fr.File)
		}
		if err != nil {
			return fmt.Errorf("frame %d: %w", fr.Seq, err)
		}
		st, err := f.Stat()
		f.Close()
		if err != nil {
			return fmt.Errorf("frame %d: %w", fr.Seq, err)
		}
		if fr.Bytes != 0 && st.Size() != int64(fr.Bytes) {
			return fmt.Errorf("frame %d: %s has %d bytes, the index says %d", fr.Seq, fr.File, st.Size(), fr.Bytes)
		}
		if !first && fr.Source <= last {
			return fmt.Errorf("frame %d: source time %v does not follow %v", fr.Seq, fr.Source, last)
		}
		first, last = false, fr.Source
	}
	if d := tk.Timeline.Capture.Frames.Delivered; n != d {
		return fmt.Errorf("frames.jsonl lists %d frames, the accounting says %d delivered", n, d)
	}
	return nil
}

// MaxLength is the longest take clapper opens: longer than any run, and
// short enough that every count of output frames over it fits.
const MaxLength = 100 * time.Hour

// maxCount bounds every count a take holds.
const maxCount = 1 << 40

// checkRanges refuses times and counts no run could have written, before
// anything computes with them (a take whose end is 9e18 ns would
// overflow the count of output frames). Pure.
func checkRanges(t *Timeline) error {
	if t.Start < 0 || t.End < 0 || t.Capture.Started < 0 || t.Capture.Ended < 0 {
		return fmt.Errorf("a time is negative (start %d, end %d)", t.Start, t.End)
	}
	for _, span := range []struct {
		what     string
		from, to Time
	}{{"the take", t.Start, t.End}, {"the capture", t.Capture.Started, t.Capture.Ended}, {"the capture's start", t.Start, t.Capture.Started}, {"the capture's end", t.Start, t.Capture.Ended}} {
		if span.to > span.from && time.Duration(span.to-span.from) > MaxLength {
			return fmt.Errorf("%s spans %d ns, more than a take may (%v)", span.what, int64(span.to-span.from), MaxLength)
		}
	}
	inside := func(what string, at Time) error {
		if at != 0 && (at < t.Start-Time(MaxLength) || at > t.Start+Time(MaxLength)) {
			return fmt.Errorf("%s at %d ns is more than %v from the take's start", what, int64(at), MaxLength)
		}
		return nil
	}
	var errs []error
	for i, st := range t.Steps {
		errs = append(errs, inside(fmt.Sprintf("step %d", i+1), st.Start), inside(fmt.Sprintf("step %d", i+1), st.End))
	}
	for i, r := range t.Receipts {
		errs = append(errs, inside(fmt.Sprintf("input receipt %d", i), r.Sent), inside(fmt.Sprintf("input receipt %d", i), r.Acked))
	}
	for _, b := range t.Boundaries {
		errs = append(errs, inside(fmt.Sprintf("document %d", b.Document), b.At))
	}
	for _, h := range t.Holds {
		errs = append(errs, inside("hold "+h.Receipt, h.Start), inside("hold "+h.Receipt, h.End))
	}
	a := t.Capture.Frames
	for _, c := range []int64{a.Received, a.Delivered, a.Overflow, a.Late, a.Duplicates, a.Rejected} {
		if c < 0 || c > maxCount {
			errs = append(errs, fmt.Errorf("a frame count (%d) is out of range", c))
			break
		}
	}
	return errors.Join(errs...)
}
