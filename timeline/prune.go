package timeline

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// ErrPruned is the error for a frame whose picture was removed after the
// run (Prune).
var ErrPruned = errors.New("its picture was removed after the run: the take was pruned (clapper run --keep failed keeps the pictures and videos of failed scripts only); its timeline, journal and report remain, and a run with --keep all keeps everything")

// Prune removes a sealed take's frame pictures and keeps the rest sealed:
// the manifest (version 2) lists the remaining files as before and moves
// the pictures' entries, with their sizes and checksums, under "pruned"
// with why and when. The manifest is rewritten first, so a prune stopped
// midway leaves pictures that verify still matches against it. A take
// without a manifest is not pruned. It returns how many files it removed
// and their bytes.
func Prune(dir, why string, now time.Time) (files int, bytes int64, err error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return 0, 0, fmt.Errorf("prune %s: %w (only a sealed take is pruned)", dir, err)
	}
	var keep, gone []Entry
	for _, e := range m.Files {
		if strings.HasPrefix(e.Path, FramesDir+"/") {
			gone = append(gone, e)
		} else {
			keep = append(keep, e)
		}
	}
	if len(gone) == 0 {
		return 0, 0, nil
	}
	if m.Pruned == nil {
		m.Pruned = &Pruning{At: now.UTC().Truncate(time.Millisecond), Why: why}
	}
	m.Pruned.Files = append(m.Pruned.Files, gone...)
	slices.SortFunc(m.Pruned.Files, func(a, b Entry) int { return strings.Compare(a.Path, b.Path) })
	m.Files, m.Version = keep, PrunedManifestVersion
	if err := m.write(dir); err != nil {
		return 0, 0, fmt.Errorf("prune %s: %w", dir, err)
	}
	for _, e := range gone {
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(e.Path))); err != nil && !errors.Is(err, os.ErrNotExist) {
			return files, bytes, fmt.Errorf("prune %s: %w", dir, err)
		}
		files, bytes = files+1, bytes+e.Size
	}
	return files, bytes, nil
}
