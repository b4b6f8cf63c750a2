package suite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/clapper-dev/clapper/bundle"
	"github.com/clapper-dev/clapper/internal/exit"
	"github.com/clapper-dev/clapper/timeline"
)

// Merge puts the outputs of several shards back together in out: one
// summary, one index (and the JUnit file, when junit is set). An input is
// a suite's output folder (with its suite.json) or a take packed as a
// .clap bundle (unpacked into out). Every take merged is verified first,
// and a script found in two inputs is refused: nothing is written then.
// The shards' folders stay where they are; the index links to them.
func Merge(ctx context.Context, inputs []string, out, junit string) (*Summary, error) {
	if len(inputs) == 0 {
		return nil, exit.Usagef("merge takes the shards' output folders (or .clap takes), e.g. clapper merge out/shard-1 out/shard-2 -o out/all")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, fmt.Errorf("create output folder: %w", err)
	}
	sum := &Summary{}
	from := map[string]string{} // a script's key → the input it came from
	var problems []string
	add := func(e Entry, input string) {
		if prev, dup := from[e.Dir]; dup {
			problems = append(problems, fmt.Sprintf("%s is in both %s and %s: merge each script once (were two shards given the same part?)", e.Script, prev, input))
			return
		}
		from[e.Dir] = input
		sum.Scripts = append(sum.Scripts, e)
	}
	var started time.Time
	for _, in := range inputs {
		if bundle.IsBundle(in) {
			e, err := mergeBundle(ctx, in, out)
			if err != nil {
				problems = append(problems, err.Error())
				continue
			}
			add(e, in)
			continue
		}
		s, err := ReadSummary(in)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v (pass a suite's output folder, with its %s)", in, err, SummaryFile))
			continue
		}
		if started.IsZero() || s.Started.Before(started) {
			started = s.Started
		}
		sum.WallMs = max(sum.WallMs, s.WallMs)
		sum.Tool = firstOf(sum.Tool, s.Tool)
		for _, e := range s.Scripts {
			if e.Take != "" {
				take := filepath.Join(in, filepath.FromSlash(e.Take))
				if v := timeline.Verify(take); !v.OK() {
					problems = append(problems, fmt.Sprintf("%s: the take of %s does not verify: %v", in, e.Script, v.Err()))
					continue
				}
			}
			add(rebase(e, in, out), in)
		}
		sum.Merged = append(sum.Merged, in)
	}
	if len(problems) > 0 {
		return nil, &exit.Error{Code: exit.Failed, Err: errors.New("nothing merged:\n  " + strings.Join(problems, "\n  "))}
	}
	sum.Started = started
	slices.SortStableFunc(sum.Scripts, func(a, b Entry) int { return strings.Compare(a.Dir, b.Dir) })
	sum.Count()
	return sum, Publish(sum, out, junit)
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// rebase makes an entry's paths, relative to the folder in, relative to
// out.
func rebase(e Entry, in, out string) Entry {
	re := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		abs, err1 := filepath.Abs(filepath.Join(in, filepath.FromSlash(p)))
		base, err2 := filepath.Abs(out)
		if err1 != nil || err2 != nil {
			return p
		}
		r, err := filepath.Rel(base, abs)
		if err != nil {
			return abs
		}
		return filepath.ToSlash(r)
	}
	e.Take, e.Report, e.Thumb = re(e.Take), re(e.Report), re(e.Thumb)
	if e.Diff != nil {
		d := *e.Diff
		d.Report = re(d.Report)
		e.Diff = &d
	}
	e.Videos = slices.Clone(e.Videos)
	for i := range e.Videos {
		e.Videos[i] = re(e.Videos[i])
	}
	e.Log = re(e.Log)
	e.Attempts = slices.Clone(e.Attempts)
	for i := range e.Attempts {
		e.Attempts[i].Dir = re(e.Attempts[i].Dir)
	}
	return e
}

// mergeBundle unpacks a .clap take into out/<its name>/take, checked entry
// by entry against its manifest, and makes its entry from its timeline.
func mergeBundle(ctx context.Context, clap, out string) (Entry, error) {
	name := strings.TrimSuffix(filepath.Base(clap), bundle.Ext)
	dir := filepath.Join(out, name)
	take := filepath.Join(dir, "take")
	if _, err := os.Stat(take); err == nil {
		return Entry{}, fmt.Errorf("%s: %s is there already: merge into an empty folder", clap, take)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Entry{}, err
	}
	if _, err := bundle.UnpackContext(ctx, clap, take, bundle.DefaultLimits); err != nil {
		return Entry{}, fmt.Errorf("%s: %w", clap, err)
	}
	tk, err := timeline.Open(take)
	if err != nil {
		return Entry{}, fmt.Errorf("%s: %w", clap, err)
	}
	tl := tk.Timeline
	e := Entry{Script: tl.Script, Dir: name, Name: tl.Name, Take: path.Join(name, "take"), TakeMs: time.Duration(tl.End - tl.Start).Milliseconds(),
		Attempts: []Attempt{{Dir: name}}}
	if e.Script == "" {
		e.Script = clap
	}
	switch tl.Outcome {
	case timeline.RunOK:
		e.Status = Passed
	case timeline.RunInterrupted:
		e.Status, e.Exit = Interrupted, exit.Failed
	default:
		e.Status, e.Exit, e.Error = Failed, exit.Failed, tl.Error
	}
	for _, st := range tl.Steps {
		if st.Outcome != timeline.OutcomeOK && st.Outcome != timeline.OutcomeSkipped && !st.Optional {
			e.Failure = &Failure{Step: st.Index + 1, File: st.File, Line: st.Line, Col: st.Col, Kind: st.Kind, Error: st.Error}
			e.Error = ""
			break
		}
	}
	e.Attempts[0].Status = e.Status
	if ok, err := writeThumb(take, filepath.Join(dir, ThumbFile)); err == nil && ok {
		e.Thumb = path.Join(name, ThumbFile)
	}
	return e, nil
}
