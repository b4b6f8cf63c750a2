package timeline

import (
	"github.com/clapper-dev/clapper/internal/plainfile"
	"path"

	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// ManifestFile is the take's manifest: what it holds and what made it.
const ManifestFile = "manifest.json"

// ManifestVersion is the version of manifest.json this package writes for
// a whole take; PrunedManifestVersion the version of one whose pictures
// were removed after the run (Prune). A clapper that knows only version 1
// refuses a pruned take by its version, instead of calling its pictures
// missing.
const (
	ManifestVersion       = 1
	PrunedManifestVersion = 2
)

// Manifest lists every file of a take with its checksum and size, and the
// facts a reader needs to trust the take years later: the tool and browser
// that recorded it, the capture mode, viewport and start time.
type Manifest struct {
	Version int `json:"version"`
	// Tool is the clapper that wrote the take ("clapper 0123456789ab
	// (2026-…)"); Revision is its VCS revision, "" when the build carries
	// none.
	Tool     string `json:"tool"`
	Revision string `json:"revision,omitempty"`
	// Chromium is the browser's product string ("Chrome/156.0…"), "" when
	// the run never reached a browser.
	Chromium string    `json:"chromium,omitempty"`
	Capture  string    `json:"capture"`
	Viewport Viewport  `json:"viewport"`
	Started  time.Time `json:"started"`
	Files    []Entry   `json:"files"`
	// Pruned, when set, lists the files removed after the run sealed the
	// take (its frame pictures), with the sizes and checksums they had.
	Pruned *Pruning `json:"pruned,omitempty"`
}

// Pruning says which files were removed from a sealed take, when and why.
// They are no longer in Files: what remains is sealed as before, and the
// removed files are still described, so the take says what it held.
type Pruning struct {
	At    time.Time `json:"at"`
	Why   string    `json:"why"`
	Files []Entry   `json:"files"`
}

// prunedSet is the set of paths a manifest says were pruned; empty for a
// whole take.
func (m *Manifest) prunedSet() map[string]Entry {
	out := map[string]Entry{}
	if m != nil && m.Pruned != nil {
		for _, e := range m.Pruned.Files {
			out[e.Path] = e
		}
	}
	return out
}

// Entry is one file of a take, its path relative to the take's folder with
// forward slashes.
type Entry struct {
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// ManifestInfo is what the writer of a take knows besides its files.
type ManifestInfo struct {
	Revision string
	Chromium string
}

// CaptureMode names how a timeline's frames were captured.
func CaptureMode(t *Timeline) string {
	if t.Capture.Format == "" {
		return "screencast"
	}
	return "screencast/" + t.Capture.Format
}

// WriteManifest lists the take's files (all but the manifest itself) and
// writes manifest.json atomically: a temporary file renamed into place,
// after everything else is written, so a manifest present means the take
// was finished.
func WriteManifest(dir string, t *Timeline, info ManifestInfo) (*Manifest, error) {
	m, err := BuildManifest(dir, t, info)
	if err != nil {
		return nil, fmt.Errorf("write manifest: %w", err)
	}
	if err := m.write(dir); err != nil {
		return nil, err
	}
	return m, nil
}

// write writes m as dir's manifest.json: a temporary file renamed into
// place.
func (m *Manifest) write(dir string) error {
	b, err := m.Encode()
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, ManifestFile+".tmp")
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return fmt.Errorf("write manifest: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, ManifestFile)); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write manifest: %w", err)
	}
	return nil
}

// BuildManifest lists the take's files (all but a manifest) with their
// checksums, without writing anything.
func BuildManifest(dir string, t *Timeline, info ManifestInfo) (*Manifest, error) {
	files, err := hashFiles(dir)
	if err != nil {
		return nil, err
	}
	return &Manifest{
		Version: ManifestVersion, Tool: t.Tool, Revision: info.Revision, Chromium: info.Chromium,
		Capture: CaptureMode(t), Viewport: t.Viewport, Started: t.Clock.Wall, Files: files,
	}, nil
}

// Encode returns the manifest as manifest.json holds it.
func (m *Manifest) Encode() ([]byte, error) {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode manifest: %w", err)
	}
	return append(b, '\n'), nil
}

// ReadManifest reads a take's manifest; os.ErrNotExist (wrapped) when the
// take has none.
func ReadManifest(dir string) (*Manifest, error) {
	b, err := plainfile.ReadFile(filepath.Join(dir, ManifestFile), ManifestFile, plainfile.Manifest, false)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s is not valid JSON: %w", ManifestFile, err)
	}
	if err := m.CheckVersion(); err != nil {
		return nil, fmt.Errorf("%s: %w", ManifestFile, err)
	}
	return &m, nil
}

// CheckVersion refuses a manifest this clapper cannot read: version 1, or
// version 2 with its pruned files said.
func (m *Manifest) CheckVersion() error {
	switch {
	case m.Version == ManifestVersion && m.Pruned == nil, m.Version == PrunedManifestVersion && m.Pruned != nil:
		return nil
	case m.Version == ManifestVersion || m.Version == PrunedManifestVersion:
		return fmt.Errorf("version %d does not match its pruned files (version 2 says them, version 1 has none)", m.Version)
	}
	return fmt.Errorf("version %d is not supported (this clapper reads versions 1 and 2)", m.Version)
}

// skipFile reports the names a manifest never lists: itself and the
// temporary files clapper's atomic writes use at the take's root, which may
// be in flight while the manifest is built. Only those names are skipped:
// any other file, whatever its name, is listed (and, when a sealed take
// has it, an extra file).
func skipFile(rel string) bool {
	return rel == ManifestFile || rel == ManifestFile+".tmp" || rel == TimelineFile+".tmp"
}

// hashFiles walks the take and returns its plain files, sorted by path.
// Anything but a plain file or folder is refused: a take holds nothing
// else.
func hashFiles(dir string) ([]Entry, error) {
	var out []Entry
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		if d.IsDir() {
			return nil
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s is not a plain file (%s): a take holds only files and folders", rel, d.Type())
		}
		if skipFile(rel) {
			return nil
		}
		e, err := hashFile(p)
		if err != nil {
			return err
		}
		e.Path = rel
		out = append(out, e)
		return nil
	})
	slices.SortFunc(out, func(a, b Entry) int { return strings.Compare(a.Path, b.Path) })
	return out, err
}

func hashFile(p string) (Entry, error) {
	// A take's largest files are its frame index and its journal; a pipe
	// or a device is refused before it is read.
	f, err := plainfile.Open(p, filepath.Base(p), plainfile.Frames, false)
	if err != nil {
		return Entry{}, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return Entry{}, err
	}
	return Entry{Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// Problem is one thing wrong with a take: the file it is in and what.
type Problem struct {
	File string `json:"file"`
	What string `json:"what"`
}

func (p Problem) String() string { return p.File + ": " + p.What }

// checkManifest compares the take's files with its manifest: each listed
// file present with its size and checksum, and nothing else there.
func checkManifest(dir string, m *Manifest) []Problem {
	var ps []Problem
	listed := map[string]bool{}
	for _, e := range m.Files {
		listed[e.Path] = true
		if err := checkEntryPath(e.Path); err != nil {
			ps = append(ps, Problem{ManifestFile, err.Error()})
			continue
		}
		got, err := hashFile(filepath.Join(dir, filepath.FromSlash(e.Path)))
		switch {
		case errors.Is(err, os.ErrNotExist):
			ps = append(ps, Problem{e.Path, "missing: the manifest lists it"})
		case err != nil:
			ps = append(ps, Problem{e.Path, err.Error()})
		case got.Size != e.Size:
			ps = append(ps, Problem{e.Path, fmt.Sprintf("altered: %d bytes, the manifest says %d", got.Size, e.Size)})
		case got.SHA256 != e.SHA256:
			ps = append(ps, Problem{e.Path, "altered: its SHA-256 does not match the manifest's"})
		}
	}
	pruned := m.prunedSet()
	for p := range pruned {
		if err := checkEntryPath(p); err != nil || !strings.HasPrefix(p, FramesDir+"/") || listed[p] {
			ps = append(ps, Problem{ManifestFile, fmt.Sprintf("pruned %q: only frame pictures (%s/…) not listed as kept are pruned", p, FramesDir)})
		}
	}
	have, err := hashNames(dir)
	if err != nil {
		return append(ps, Problem{".", err.Error()})
	}
	for _, rel := range have {
		if listed[rel] {
			continue
		}
		// A pruned file still there (a prune stopped midway) is the file
		// the take sealed, or it is a problem.
		if e, ok := pruned[rel]; ok {
			if got, err := hashFile(filepath.Join(dir, filepath.FromSlash(rel))); err != nil || got.Size != e.Size || got.SHA256 != e.SHA256 {
				ps = append(ps, Problem{rel, "altered: a pruned file left behind that is not the one the manifest describes"})
			}
			continue
		}
		ps = append(ps, Problem{rel, "extra: the manifest does not list it"})
	}
	// A folder is there to hold listed files (frames/ may be empty).
	holds := map[string]bool{FramesDir: true}
	for p := range listed {
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			holds[d] = true
		}
	}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || p == dir {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if rel = filepath.ToSlash(rel); !holds[rel] {
			ps = append(ps, Problem{rel, "extra folder: it holds no file the manifest lists"})
			return filepath.SkipDir
		}
		return nil
	})
	return ps
}

// hashNames lists the take's files as hashFiles would, without reading
// them; anything not a plain file is named as a problem by its path.
func hashNames(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		// Only the manifest itself: a temporary file left in a sealed take
		// was written after it, so it is an extra file like any other.
		if rel == "." || d.IsDir() || rel == ManifestFile {
			return nil
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s is not a plain file (%s)", rel, d.Type())
		}
		out = append(out, rel)
		return nil
	})
	return out, err
}

// checkEntryPath refuses a listed path that is absolute, climbs out of the
// take or is not in its clean form.
func checkEntryPath(p string) error {
	if p == "" || strings.HasPrefix(p, "/") || filepath.IsAbs(p) || strings.Contains(p, "\\") {
		return fmt.Errorf("path %q is not relative to the take", p)
	}
	if c := filepath.ToSlash(filepath.Clean(p)); c != p || c == ".." || strings.HasPrefix(c, "../") {
		return fmt.Errorf("path %q leaves the take or is not clean", p)
	}
	return nil
}
