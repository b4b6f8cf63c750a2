package timeline

import (
	"github.com/clapper-dev/clapper/internal/plainfile"
	"time"

	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Verification is what Verify found: the problems (any one makes the take
// untrustworthy) and warnings (a take older than manifests, say).
type Verification struct {
	Problems []Problem `json:"problems"`
	Warnings []string  `json:"warnings,omitempty"`
	// Manifest is the take's manifest, nil when it has none.
	Manifest *Manifest `json:"manifest,omitempty"`
}

// OK reports whether the take passed.
func (v *Verification) OK() bool { return len(v.Problems) == 0 }

// Err returns the problems as one error naming each, nil when there are
// none.
func (v *Verification) Err() error {
	if v.OK() {
		return nil
	}
	lines := make([]string, len(v.Problems))
	for i, p := range v.Problems {
		lines[i] = p.String()
	}
	return fmt.Errorf("take check failed, %d problem(s):\n  %s", len(lines), strings.Join(lines, "\n  "))
}

// NoManifestWarning is the warning for a take written before takes had
// manifests.
const NoManifestWarning = "the take has no " + ManifestFile + " (written by an older clapper, or not finished): its files cannot be checked against checksums"

// Verify checks everything a take claims about itself: the timeline's
// version, its accounting equations, that no recorded time goes backwards,
// that the frame index matches the frame files, and (when the take has a
// manifest) that every file is present, unaltered and listed. It reads
// every file once; memory stays bounded by the longest line of the index.
func Verify(dir string) *Verification {
	v := &Verification{}
	add := func(file, format string, args ...any) {
		v.Problems = append(v.Problems, Problem{file, fmt.Sprintf(format, args...)})
	}
	m, err := ReadManifest(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		v.Warnings = append(v.Warnings, NoManifestWarning)
	case err != nil:
		add(ManifestFile, "%v", err)
	default:
		v.Manifest = m
		v.Problems = append(v.Problems, checkManifest(dir, m)...)
		if p := m.Pruned; p != nil {
			v.Warnings = append(v.Warnings, PrunedWarning(p))
		}
	}
	b, err := plainfile.ReadFile(filepath.Join(dir, TimelineFile), TimelineFile, plainfile.Timeline, false)
	if errors.Is(err, os.ErrNotExist) && v.Manifest == nil {
		if _, jerr := os.Lstat(filepath.Join(dir, JournalFile)); jerr == nil {
			// A run killed before it wrote its record: check the take
			// as inspect and render open it, rebuilt from its journal.
			return verifyRecovered(dir, v)
		}
	}
	if err != nil {
		add(TimelineFile, "%v", err)
		return v
	}
	var probe struct {
		Version int `json:"version"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		add(TimelineFile, "not valid JSON: %v", err)
		return v
	}
	if probe.Version != Version && probe.Version != 1 {
		add(TimelineFile, "version %d is not supported (this clapper reads versions 1 to %d)", probe.Version, Version)
		return v
	}
	var t Timeline
	if err := json.Unmarshal(b, &t); err != nil {
		add(TimelineFile, "%v", err)
		return v
	}
	for _, p := range CheckTimeline(&t) {
		add(TimelineFile, "%s", p)
	}
	tk := &Take{Dir: dir, Timeline: &t}
	v.Problems = append(v.Problems, tk.checkFrames(v.Manifest.prunedSet())...)
	return v
}

// CheckTimeline returns what is inconsistent within a timeline: accounting
// that does not balance and times that go backwards. Pure.
func CheckTimeline(t *Timeline) []string {
	var ps []string
	if a := t.Capture.Frames; !a.Balanced() {
		ps = append(ps, fmt.Sprintf("frame accounting does not balance: received %d != delivered %d + overflow %d + late %d + duplicates %d + rejected %d",
			a.Received, a.Delivered, a.Overflow, a.Late, a.Duplicates, a.Rejected))
	}
	if t.End < t.Start {
		ps = append(ps, fmt.Sprintf("the take ends (%v) before it starts (%v)", t.End, t.Start))
	}
	if t.Capture.Ended < t.Capture.Started {
		ps = append(ps, fmt.Sprintf("the capture ends (%v) before it starts (%v)", t.Capture.Ended, t.Capture.Started))
	}
	var last Time
	for i, st := range t.Steps {
		if st.End < st.Start {
			ps = append(ps, fmt.Sprintf("step %d ends (%v) before it starts (%v)", st.Index+1, st.End, st.Start))
		}
		if i > 0 && st.Start < last {
			ps = append(ps, fmt.Sprintf("step %d starts (%v) before step %d did (%v)", st.Index+1, st.Start, t.Steps[i-1].Index+1, last))
		}
		last = st.Start
	}
	for i, b := range t.Boundaries {
		if i > 0 && b.At < t.Boundaries[i-1].At {
			ps = append(ps, fmt.Sprintf("document %d commits (%v) before document %d (%v)", b.Document, b.At, t.Boundaries[i-1].Document, t.Boundaries[i-1].At))
		}
	}
	for i, r := range t.Receipts {
		if r.Acked != 0 && r.Acked < r.Sent {
			ps = append(ps, fmt.Sprintf("input receipt %d is acknowledged (%v) before it was sent (%v)", i, r.Acked, r.Sent))
		}
	}
	for _, h := range t.Holds {
		if h.End != 0 && h.End < h.Start {
			ps = append(ps, fmt.Sprintf("hold %s of tab %s ends (%v) before it starts (%v)", h.Receipt, h.Tab, h.End, h.Start))
		}
	}
	return ps
}

// checkFrames compares the frame index with the frame files: every listed
// frame a plain file of its recorded size, source times increasing, the
// count the accounting says, and no frame file the index does not list. A
// picture the manifest says was pruned may be missing.
func (tk *Take) checkFrames(pruned map[string]Entry) []Problem {
	var ps []Problem
	if err := tk.checkFramesDir(); err != nil {
		return []Problem{{FramesDir, err.Error()}}
	}
	listed := map[string]bool{}
	var n, lastSeq int64
	var last Time
	for fr, err := range tk.Frames() {
		if err != nil {
			return append(ps, Problem{FramesFile, err.Error()})
		}
		n++
		if n > 1 && fr.Seq <= lastSeq {
			ps = append(ps, Problem{FramesFile, fmt.Sprintf("frame %d follows frame %d: sequence numbers must increase", fr.Seq, lastSeq)})
		}
		lastSeq = fr.Seq
		if fr.File != FramePath(fr.Seq) {
			ps = append(ps, Problem{FramesFile, fmt.Sprintf("frame %d names %s, not its own picture %s", fr.Seq, fr.File, FramePath(fr.Seq))})
		}
		listed[fr.File] = true
		// The order of source times is checked whatever became of the
		// picture (missing, or pruned).
		if n > 1 && fr.Source <= last {
			ps = append(ps, Problem{FramesFile, fmt.Sprintf("frame %d: source time %v does not follow %v", fr.Seq, fr.Source, last)})
		}
		last = fr.Source
		f, err := tk.openFrame(fr.File)
		if _, ok := pruned[fr.File]; ok && errors.Is(err, os.ErrNotExist) {
			continue
		}
		if errors.Is(err, os.ErrNotExist) {
			ps = append(ps, Problem{fr.File, fmt.Sprintf("missing: %s lists it as frame %d", FramesFile, fr.Seq)})
			continue
		}
		if err != nil {
			ps = append(ps, Problem{fr.File, err.Error()})
			continue
		}
		st, err := f.Stat()
		f.Close()
		if err == nil && fr.Bytes != 0 && st.Size() != int64(fr.Bytes) {
			ps = append(ps, Problem{fr.File, fmt.Sprintf("has %d bytes, %s says %d", st.Size(), FramesFile, fr.Bytes)})
		}
	}
	if d := tk.Timeline.Capture.Frames.Delivered; n != d {
		ps = append(ps, Problem{FramesFile, fmt.Sprintf("lists %d frames, the accounting in %s says %d delivered", n, TimelineFile, d)})
	}
	ents, err := os.ReadDir(filepath.Join(tk.Dir, FramesDir))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return append(ps, Problem{FramesDir, err.Error()})
	}
	for _, e := range ents {
		if rel := FramesDir + "/" + e.Name(); !listed[rel] {
			ps = append(ps, Problem{rel, fmt.Sprintf("not in %s: a frame file the index does not list", FramesFile)})
		}
	}
	return ps
}

// PrunedWarning says what a pruned take no longer holds, for verify and
// the report.
func PrunedWarning(p *Pruning) string {
	return fmt.Sprintf("its %d frame pictures were removed after the run, on %s (%s); the manifest keeps their checksums and seals the rest, so the take still verifies but cannot be rendered", len(p.Files), p.At.Format(time.RFC3339), p.Why)
}

// RecoveredWarning says a take was checked as recovered from its journal.
const RecoveredWarning = "this take was recovered: its run ended before it wrote " + TimelineFile + ", so it was rebuilt from " + JournalFile + " and checked as that; it has no manifest, so nothing seals its files"

// verifyRecovered checks a take that has a journal and no timeline: the
// timeline rebuilt from the journal, against itself and the frames.
func verifyRecovered(dir string, v *Verification) *Verification {
	t, err := Recover(dir)
	if err != nil {
		v.Problems = append(v.Problems, Problem{JournalFile, err.Error()})
		return v
	}
	// It says why there is no manifest: in place of the older-take warning.
	v.Warnings = []string{RecoveredWarning}
	for _, p := range CheckTimeline(t) {
		v.Problems = append(v.Problems, Problem{JournalFile, p})
	}
	tk := &Take{Dir: dir, Timeline: t}
	v.Problems = append(v.Problems, tk.checkFrames(nil)...)
	return v
}
