// Package suite films many scripts in one command: it expands the
// scripts and folders given, takes this shard's part, films them with N
// workers (each script through film.Film, into a folder of its own),
// retries failures when asked, and writes one summary (suite.json), one
// index page (index.html) and one JUnit file for all. Merge puts the
// outputs of several shards back together. Planning is pure: which
// scripts, in which order, in which shard, into which folder.
package suite

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Expand turns the arguments of clapper run into the scripts they name,
// in order: a file is itself; a folder is its *.yaml and *.yml files (not
// its subfolders), in name order. A script named twice is filmed once.
// Files other scripts include are left out afterwards (Exclude).
func Expand(args []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		key := filepath.Clean(p)
		if abs, err := filepath.Abs(p); err == nil {
			key = abs
		}
		if !seen[key] {
			seen[key] = true
			out = append(out, filepath.Clean(p))
		}
	}
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, fmt.Errorf("%s: %w (pass run scripts, or folders of them)", a, errors.Unwrap(err))
		}
		if !st.IsDir() {
			add(a)
			continue
		}
		ents, err := os.ReadDir(a)
		if err != nil {
			return nil, err
		}
		n := 0
		for _, e := range ents { // ReadDir sorts by name
			ext := filepath.Ext(e.Name())
			if (ext != ".yaml" && ext != ".yml") || strings.HasPrefix(e.Name(), ".") {
				continue
			}
			// A link to a script counts (a mounted ConfigMap's files are
			// links); a folder, or a link to one, does not.
			if st, err := os.Stat(filepath.Join(a, e.Name())); err == nil && st.Mode().IsRegular() {
				add(filepath.Join(a, e.Name()))
				n++
			}
		}
		if n == 0 {
			return nil, fmt.Errorf("%s: no .yaml scripts in this folder", a)
		}
	}
	return out, nil
}

// Exclude drops from scripts the files that others include (included
// holds their absolute paths): a part is not a run of its own.
func Exclude(scripts []string, included map[string]bool) []string {
	var out []string
	for _, s := range scripts {
		abs, err := filepath.Abs(s)
		if err == nil && included[abs] {
			continue
		}
		out = append(out, s)
	}
	return out
}

// OutDir is where a script's take and videos go inside the suite's
// output folder: its path as given, relative to the working folder wd,
// without the extension (samples/tour.yaml → samples/tour). A script
// outside wd keeps its absolute path, under "abs/", so that two scripts
// never share a folder. Pure.
func OutDir(script, wd string) string {
	abs := script
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(wd, script)
	}
	abs = filepath.Clean(abs)
	rel, err := filepath.Rel(wd, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		rel = filepath.Join("abs", strings.TrimPrefix(abs, string(filepath.Separator)))
	}
	return strings.TrimSuffix(rel, filepath.Ext(rel))
}

// Shard is the part of a suite one process films: the Index-th (from 1)
// of Count. The zero Shard is the whole suite.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// Whole says whether s is the whole suite.
func (s Shard) Whole() bool { return s.Count <= 1 }

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// ParseShard reads --shard i/n (1 ≤ i ≤ n).
func ParseShard(v string) (Shard, error) {
	a, b, ok := strings.Cut(v, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return Shard{}, fmt.Errorf("--shard %q: give i/n with 1 ≤ i ≤ n, e.g. --shard 2/3", v)
	}
	return Shard{Index: i, Count: n}, nil
}

// Plan returns the scripts of shard s, in the order they are filmed. The
// parts depend only on the scripts' keys (their output folders, compared
// as bytes: no locale) and on the durations given, never on the order of
// the arguments or the machine. Without durations the keys are dealt in
// turn (the k-th key in key order goes to part k mod n); with them
// (a previous suite's summary), the longest script goes first to the part
// with the least total so far, ties to the lower part, and a script with
// no recorded duration counts as the median of the known ones. Within a
// part the scripts keep the order they were given. keyOf maps a script to
// its key. Pure.
func Plan(scripts []string, s Shard, keyOf func(string) string, durations map[string]time.Duration) []string {
	if s.Whole() {
		return slices.Clone(scripts)
	}
	keys := make([]string, len(scripts))
	for i, sc := range scripts {
		keys[i] = keyOf(sc)
	}
	order := make([]int, len(scripts))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(keys[a], keys[b]) })
	part := make([]int, len(scripts))
	if len(durations) == 0 {
		for k, i := range order {
			part[i] = k % s.Count
		}
	} else {
		var known []time.Duration
		for _, k := range keys {
			if d, ok := durations[k]; ok {
				known = append(known, d)
			}
		}
		median := time.Duration(0)
		if len(known) > 0 {
			slices.Sort(known)
			median = known[len(known)/2]
		}
		dur := func(i int) time.Duration {
			if d, ok := durations[keys[i]]; ok {
				return d
			}
			return median
		}
		slices.SortStableFunc(order, func(a, b int) int {
			da, db := dur(a), dur(b)
			switch {
			case da > db:
				return -1
			case da < db:
				return 1
			}
			return strings.Compare(keys[a], keys[b])
		})
		load := make([]time.Duration, s.Count)
		for _, i := range order {
			best := 0
			for p := 1; p < s.Count; p++ {
				if load[p] < load[best] {
					best = p
				}
			}
			part[i] = best
			load[best] += dur(i)
		}
	}
	var out []string
	for i, sc := range scripts {
		if part[i] == s.Index-1 {
			out = append(out, sc)
		}
	}
	return out
}

// DefaultWorkers is how many scripts are filmed at once when not told.
// Studio capture (studio true) runs on virtual time: a busy machine makes a
// take slower, never different, so every core films (two workers on two
// cores beat one: docs/internals.md). Live capture films the page in real time, and a page
// that gets less CPU paints fewer frames: one worker for every two cores,
// at least one, so each live run keeps a core for the browser and one for
// the capture and encoder. The cores counted are those Go schedules on:
// in a container with a CPU limit, the limit, not the machine's.
func DefaultWorkers(studio bool) int {
	cores := runtime.GOMAXPROCS(0)
	if studio {
		return max(1, cores)
	}
	return max(1, cores/2)
}
