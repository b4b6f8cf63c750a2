package suite

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/clapper-dev/clapper/timeline"
)

// SummaryFile is the suite's record in its output folder.
const SummaryFile = "suite.json"

// SummaryVersion is the version of suite.json this clapper writes.
const SummaryVersion = 1

// Status is how a script's run ended in a suite.
type Status string

const (
	Passed      Status = "passed"
	Failed      Status = "failed"      // a step, an expectation, the capture or the video failed
	Flaky       Status = "flaky"       // failed, then passed on a retry
	Broken      Status = "broken"      // the run could not start or broke (a usage error, a crash)
	Interrupted Status = "interrupted" // stopped by a signal
)

// Failure is the step that failed a script's run.
type Failure struct {
	Step  int    `json:"step"` // from 1
	File  string `json:"file"`
	Line  int    `json:"line"`
	Col   int    `json:"col"`
	Kind  string `json:"kind"`
	Error string `json:"error"`
}

// Where is the failure's file:line:col.
func (f *Failure) Where() string { return fmt.Sprintf("%s:%d:%d", f.File, f.Line, f.Col) }

// Attempt is one filming of a script: the first, or a retry.
type Attempt struct {
	Dir    string `json:"dir"` // relative to the summary's folder
	Status Status `json:"status"`
	Error  string `json:"error,omitempty"`
}

// Entry is one script of the suite, as its last attempt left it (each
// attempt is listed in Attempts).
type Entry struct {
	// Script is the script as given; Dir its output folder, relative to
	// the summary's folder (the take is Dir/take).
	Script string `json:"script"`
	Dir    string `json:"dir"`
	// Name is the script's name (its take's title).
	Name   string `json:"name,omitempty"`
	Status Status `json:"status"`
	// Exit is the exit code clapper run would give this script alone.
	Exit int `json:"exit"`
	// DurationMs is the wall time of the runs (every attempt); TakeMs the
	// length of the last take.
	DurationMs int64    `json:"duration_ms"`
	TakeMs     int64    `json:"take_ms,omitempty"`
	Failure    *Failure `json:"failure,omitempty"`
	// Error is why the run failed or broke, when no step says it.
	Error string `json:"error,omitempty"`
	// Take, Report, Videos, Thumb and Log (what the run said) are relative to the summary's folder.
	Take   string   `json:"take,omitempty"`
	Report string   `json:"report,omitempty"`
	Videos []string `json:"videos,omitempty"`
	Thumb  string   `json:"thumb,omitempty"`
	Log    string   `json:"log,omitempty"`
	// Pruned says the script's videos and frame pictures were removed
	// after it passed (--keep failed): its take keeps its timeline,
	// journal and report, sealed.
	Pruned bool `json:"pruned,omitempty"`
	// Diff is the comparison with the script's baseline, when there was
	// one.
	Diff     *Diff     `json:"diff,omitempty"`
	Attempts []Attempt `json:"attempts"`
}

// Diff is what a comparison with a baseline found: how many findings,
// whether any fails, the first lines, and its report.
type Diff struct {
	Findings int      `json:"findings"`
	Fails    bool     `json:"fails"`
	Lines    []string `json:"lines,omitempty"`
	Report   string   `json:"report,omitempty"`
}

// Totals count the scripts by status.
type Totals struct {
	Scripts     int `json:"scripts"`
	Passed      int `json:"passed"`
	Failed      int `json:"failed"`
	Flaky       int `json:"flaky"`
	Broken      int `json:"broken"`
	Interrupted int `json:"interrupted"`
}

// OK says whether every script passed (flaky ones included).
func (t Totals) OK() bool { return t.Failed+t.Broken+t.Interrupted == 0 }

// Summary is a suite's record: suite.json.
type Summary struct {
	Version int       `json:"version"`
	Tool    string    `json:"tool,omitempty"`
	Started time.Time `json:"started"`
	WallMs  int64     `json:"wall_ms"`
	Workers int       `json:"workers,omitempty"`
	// Shard is the part of the suite filmed (nil: all of it); Merged the
	// shards' folders a merge read.
	Shard   *Shard   `json:"shard,omitempty"`
	Merged  []string `json:"merged,omitempty"`
	Scripts []Entry  `json:"scripts"`
	Totals  Totals   `json:"totals"`
}

// Count sets the totals from the entries.
func (s *Summary) Count() {
	t := Totals{Scripts: len(s.Scripts)}
	for _, e := range s.Scripts {
		switch e.Status {
		case Passed:
			t.Passed++
		case Failed:
			t.Failed++
		case Flaky:
			t.Flaky++
		case Broken:
			t.Broken++
		case Interrupted:
			t.Interrupted++
		}
	}
	s.Totals = t
}

// Line is the final line a suite prints: "5 passed, 1 failed (6 scripts)".
func (t Totals) Line() string {
	s := fmt.Sprintf("%d passed", t.Passed)
	for _, c := range []struct {
		n    int
		what string
	}{{t.Flaky, "flaky"}, {t.Failed, "failed"}, {t.Broken, "broken"}, {t.Interrupted, "interrupted"}} {
		if c.n > 0 || c.what == "failed" {
			s += fmt.Sprintf(", %d %s", c.n, c.what)
		}
	}
	return s + fmt.Sprintf(" (%d scripts)", t.Scripts)
}

// Write writes the summary to dir/suite.json, whole (a temporary file,
// then a rename).
func (s *Summary) Write(dir string) error {
	s.Version = SummaryVersion
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return writeWhole(filepath.Join(dir, SummaryFile), append(b, '\n'))
}

// writeWhole writes b to path through a temporary file and a rename, so a
// reader never sees half of it.
func writeWhole(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// ReadSummary reads a suite.json (a file, or the folder holding one).
func ReadSummary(path string) (*Summary, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, SummaryFile)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if s.Version != SummaryVersion {
		return nil, fmt.Errorf("%s: suite summary version %d is not supported (this clapper reads %d)", path, s.Version, SummaryVersion)
	}
	return &s, nil
}

// Durations are the recorded wall times of a summary's scripts, by their
// output folder, for balancing shards (Plan).
func (s *Summary) Durations() map[string]time.Duration {
	d := map[string]time.Duration{}
	for _, e := range s.Scripts {
		d[e.Dir] = time.Duration(e.DurationMs) * time.Millisecond
	}
	return d
}

// JUnit renders the suite as one JUnit file: a test suite per script.
// base is the summary's folder (the takes are read from it).
func (s *Summary) JUnit(base string) ([]byte, error) {
	var runs []timeline.JUnitRun
	for _, e := range s.Scripts {
		r := timeline.JUnitRun{Name: e.Name, File: e.Script, Error: e.Error}
		if r.Name == "" {
			r.Name = e.Script
		}
		if e.Take != "" {
			if tk, err := timeline.Open(filepath.Join(base, e.Take)); err == nil {
				r.Timeline = tk.Timeline
			}
		}
		if r.Timeline == nil && r.Error == "" && e.Status != Passed {
			r.Error = string(e.Status)
		}
		runs = append(runs, r)
	}
	return timeline.JUnitAll(runs)
}
