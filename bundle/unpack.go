package bundle

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/clapper-dev/clapper/internal/ownerlock"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/clapper-dev/clapper/timeline"
)

// Limits bound what unpacking a bundle may write.
type Limits struct {
	// MaxBytes bounds the total size of the files, MaxFiles their count.
	MaxBytes int64
	MaxFiles int
	// MaxRatio bounds how many times larger the unpacked bytes may be than
	// the compressed bytes read so far (after the first Slack bytes): frames
	// are JPEGs, which do not compress, so a take's ratio is small, and a
	// bomb's is huge.
	MaxRatio int64
	Slack    int64
}

// DefaultLimits fit an hour-long take with room to spare.
var DefaultLimits = Limits{MaxBytes: 16 << 30, MaxFiles: 1 << 20, MaxRatio: 50, Slack: 16 << 20}

// headerCost is what each tar entry is charged against MaxBytes and the
// ratio, whatever its size: a folder or an empty file still costs a header,
// an inode and a map entry, so a flood of them is bounded like bytes are.
const headerCost = 512

// maxManifest bounds manifest.json, which is read into memory whole: an
// hour-long take lists about 60k files, some 8 MB.
const maxManifest = 32 << 20

// ErrRefused wraps every refusal of a bundle's content.
var ErrRefused = errors.New("bundle refused")

func refuse(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrRefused, fmt.Sprintf(format, args...))
}

// ctxReader fails its reads once ctx has ended.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// countingReader counts the compressed bytes read.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// streamReader bounds the decompressed stream as tar reads it, headers
// and padding included, by the size and ratio bounds: tar reads through
// meta headers (PAX records, GNU long names) within one Next, with no
// bound of its own, before any entry can be checked, so a bundle of
// endless repeated meta headers, which compress to almost nothing, would
// keep it reading for hours.
type streamReader struct {
	r   io.Reader
	cr  *countingReader
	lim Limits
	n   int64
}

// streamPerEntry is the most a legitimate entry adds to the stream beside
// its bytes: its header, a PAX header for a long name, and padding.
const streamPerEntry = 4 << 10

func (s *streamReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.n += int64(n)
	if s.n > s.lim.MaxBytes+int64(s.lim.MaxFiles)*streamPerEntry {
		return n, refuse("more than %d bytes unpacked", s.lim.MaxBytes)
	}
	if s.n > s.lim.Slack && s.n > s.lim.MaxRatio*s.cr.n {
		return n, refuse("the bundle unpacks to more than %d times its compressed size", s.lim.MaxRatio)
	}
	return n, err
}

// UnpackContext unpacks the bundle src into the folder dest, which must
// not exist. It writes into a temporary folder beside dest and renames it
// into place only when every entry passed, so a refused bundle leaves
// nothing behind. It stops, removing what it wrote, when ctx ends
// (Ctrl-C).
func UnpackContext(ctx context.Context, src, dest string, lim Limits) (*timeline.Manifest, error) {
	if _, err := os.Lstat(dest); err == nil {
		return nil, fmt.Errorf("%s already exists: pass another -o, or remove it", dest)
	}
	parent := filepath.Dir(filepath.Clean(dest))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	// The unpacking goes into a hidden folder beside dest that names its
	// owner, so that what a killed unpack left is removed by the next
	// unpack into the same folder (and only when its owner is gone).
	ownerlock.Sweep(filepath.Join(parent, ".*"+unpackInfix+"*"), ownerFile, nil)
	tmp, err := ownerlock.MkdirOwned(parent, "."+filepath.Base(dest)+unpackInfix, ownerFile, "clapper: unpacking "+src)
	if err != nil {
		return nil, fmt.Errorf("unpack: %w", err)
	}
	defer os.RemoveAll(tmp)
	take := filepath.Join(tmp, "take")
	if err := os.Mkdir(take, 0o755); err != nil {
		return nil, fmt.Errorf("unpack: %w", err)
	}
	m, err := unpackInto(ctx, src, take, lim)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	if err := os.Rename(take, dest); err != nil {
		return nil, fmt.Errorf("unpack: %w", err)
	}
	return m, nil
}

func unpackInto(ctx context.Context, src, dir string, lim Limits) (*timeline.Manifest, error) {
	f, err := os.Open(src)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cr := &countingReader{r: ctxReader{ctx, f}}
	zr, err := zstd.NewReader(cr, zstd.WithDecoderMaxMemory(256<<20), zstd.WithDecoderMaxWindow(64<<20), zstd.WithDecoderConcurrency(1))
	if err != nil {
		return nil, refuse("not a zstd stream: %v", err)
	}
	defer zr.Close()
	tr := tar.NewReader(&streamReader{r: zr, cr: cr, lim: lim})
	var m *timeline.Manifest
	want := map[string]timeline.Entry{}
	seen := map[string]bool{}
	var unlisted string          // the first folder entry that holds no listed file
	folders := map[string]bool{} // the folders the manifest's files are in
	var total int64
	files := 0
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		if errors.Is(err, ErrRefused) {
			return nil, err // the stream's bound, as tar read it
		}
		if err != nil {
			return nil, refuse("not a .clap (zstd-compressed tar): %v", err)
		}
		name, err := entryName(h.Name)
		if err != nil {
			return nil, err
		}
		if seen[name] {
			return nil, refuse("%s appears twice", name)
		}
		seen[name] = true
		// Every entry, folders included, counts against the file bound and
		// is charged a header against the size and ratio bounds, before
		// anything is created for it.
		files++
		if files > lim.MaxFiles {
			return nil, refuse("more than %d files and folders", lim.MaxFiles)
		}
		total += headerCost
		if err := checkRatio(name, total, cr, lim); err != nil {
			return nil, err
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if total > lim.MaxBytes {
				return nil, refuse("more than %d bytes unpacked", lim.MaxBytes)
			}
			// A folder is there only to hold files the manifest lists.
			if m == nil {
				return nil, refuse("the first entry is the folder %s, not %s: a bundle starts with its manifest", name, timeline.ManifestFile)
			}
			if !folders[name] {
				// Not made; refused once the bounds have seen the rest.
				if unlisted == "" {
					unlisted = name
				}
				continue
			}
			if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(name)), 0o755); err != nil {
				return nil, err
			}
			continue
		case tar.TypeReg:
		case tar.TypeSymlink, tar.TypeLink:
			return nil, refuse("%s is a link: a take holds only plain files and folders", name)
		default:
			return nil, refuse("%s is not a plain file or folder (tar type %q): devices, pipes and links are refused", name, h.Typeflag)
		}
		if h.Size < 0 || total+h.Size > lim.MaxBytes {
			return nil, refuse("more than %d bytes unpacked", lim.MaxBytes)
		}
		if m == nil {
			if name != timeline.ManifestFile {
				return nil, refuse("the first entry is %s, not %s: a bundle starts with its manifest", name, timeline.ManifestFile)
			}
			if h.Size > maxManifest {
				return nil, refuse("%s is %d bytes, more than the %d a take's manifest needs", name, h.Size, maxManifest)
			}
			b, err := readBounded(name, tr, h.Size, cr, total, lim)
			if err != nil {
				return nil, err
			}
			if m, err = parseManifest(b); err != nil {
				return nil, err
			}
			if len(m.Files) >= lim.MaxFiles {
				return nil, refuse("%s lists %d files: with itself that is more than %d files", timeline.ManifestFile, len(m.Files), lim.MaxFiles)
			}
			for _, e := range m.Files {
				if _, err := entryName(e.Path); err != nil || e.Path == timeline.ManifestFile {
					return nil, refuse("%s lists %q, which is not a path inside the take", timeline.ManifestFile, e.Path)
				}
				want[e.Path] = e
				for d := path.Dir(e.Path); d != "."; d = path.Dir(d) {
					folders[d] = true
				}
			}
			for p := range want {
				if folders[p] {
					return nil, refuse("%s lists %s both as a file and as a folder of other files", timeline.ManifestFile, p)
				}
			}
			if err := os.WriteFile(filepath.Join(dir, timeline.ManifestFile), b, 0o644); err != nil {
				return nil, err
			}
			total += h.Size
			continue
		}
		e, ok := want[name]
		if !ok {
			return nil, refuse("%s is not listed in %s", name, timeline.ManifestFile)
		}
		if h.Size != e.Size {
			return nil, refuse("%s has %d bytes, %s says %d", name, h.Size, timeline.ManifestFile, e.Size)
		}
		if err := writeEntry(dir, name, tr, e, cr, total, lim); err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return nil, cerr
			}
			return nil, err
		}
		delete(want, name)
		total += h.Size
	}
	if m == nil {
		return nil, refuse("empty: no %s", timeline.ManifestFile)
	}
	for p := range want {
		return nil, refuse("%s lists %s, which the bundle lacks", timeline.ManifestFile, p)
	}
	if unlisted != "" {
		return nil, refuse("%s is a folder that holds no file %s lists", unlisted, timeline.ManifestFile)
	}
	return m, nil
}

// writeEntry copies one file out of the tar, checking its checksum and the
// compression ratio as it goes.
func writeEntry(dir, name string, r io.Reader, e timeline.Entry, cr *countingReader, before int64, lim Limits) error {
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return refuse("%s cannot be unpacked: a file stands where its folder should be (%v)", name, err)
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	buf := make([]byte, 64<<10)
	var n int64
	for {
		k, rerr := r.Read(buf)
		if k > 0 {
			n += int64(k)
			if err := checkRatio(name, before+n, cr, lim); err != nil {
				return err
			}
			h.Write(buf[:k])
			if _, err := f.Write(buf[:k]); err != nil {
				return err
			}
		}
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			return refuse("%s: %v", name, rerr)
		}
	}
	if n != e.Size {
		return refuse("%s: truncated (%d of %d bytes)", name, n, e.Size)
	}
	if hex.EncodeToString(h.Sum(nil)) != e.SHA256 {
		return refuse("%s: its SHA-256 does not match %s's: the bundle was altered", name, timeline.ManifestFile)
	}
	return f.Close()
}

// checkRatio refuses a bundle whose unpacked bytes so far (headers charged)
// exceed MaxRatio times the compressed bytes read, past the first Slack.
func checkRatio(name string, unpacked int64, cr *countingReader, lim Limits) error {
	if unpacked > lim.Slack && unpacked > lim.MaxRatio*cr.n {
		return refuse("%s: unpacks to more than %d times its compressed size", name, lim.MaxRatio)
	}
	return nil
}

// readBounded reads an entry of size bytes into memory, checking the ratio
// as it goes, so a manifest of repeated whitespace is refused early.
func readBounded(name string, r io.Reader, size int64, cr *countingReader, before int64, lim Limits) ([]byte, error) {
	b := make([]byte, 0, min(size, 1<<20))
	buf := make([]byte, 64<<10)
	lr := io.LimitReader(r, size)
	for {
		k, err := lr.Read(buf)
		b = append(b, buf[:k]...)
		if cerr := checkRatio(name, before+int64(len(b)), cr, lim); cerr != nil {
			return nil, cerr
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, refuse("%s: %v", name, err)
		}
	}
	if int64(len(b)) != size {
		return nil, refuse("%s: truncated (%d of %d bytes)", name, len(b), size)
	}
	return b, nil
}

// entryName checks a tar entry's name: relative, clean, inside the take,
// with no backslash or NUL. A folder's trailing slash is dropped.
func entryName(n string) (string, error) {
	trimmed := strings.TrimSuffix(n, "/")
	switch {
	case trimmed == "" || trimmed == ".":
		return "", refuse("an entry has no name")
	case strings.HasPrefix(n, "/") || filepath.IsAbs(n):
		return "", refuse("%q is an absolute path", n)
	case strings.ContainsAny(n, "\\\x00"):
		return "", refuse("%q holds a backslash or NUL", n)
	}
	for _, part := range strings.Split(trimmed, "/") {
		if part == ".." {
			return "", refuse("%q climbs out of the take (..)", n)
		}
	}
	if path.Clean(trimmed) != trimmed {
		return "", refuse("%q is not a clean path inside the take", n)
	}
	return trimmed, nil
}

func parseManifest(b []byte) (*timeline.Manifest, error) {
	var m timeline.Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, refuse("%s is not valid JSON: %v", timeline.ManifestFile, err)
	}
	if err := m.CheckVersion(); err != nil {
		return nil, refuse("%s: %v", timeline.ManifestFile, err)
	}
	return &m, nil
}

// OpenTempContext unpacks a bundle into a new temporary folder for a
// command that reads the take and is done with it, and returns the take's
// folder and the function that removes it. It stops, removing what it
// wrote, when ctx ends.
func OpenTempContext(ctx context.Context, src string) (string, func(), error) {
	SweepTemp(os.TempDir())
	base, err := ownerlock.MkdirOwned(os.TempDir(), tempPrefix, ownerFile, "clapper: reading "+src)
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { os.RemoveAll(base) }
	dir := filepath.Join(base, "take")
	if _, err := UnpackContext(ctx, src, dir, DefaultLimits); err != nil {
		cleanup()
		return "", nil, err
	}
	return dir, cleanup, nil
}

// Where unpacks go while they run: a bundle read by a command is unpacked
// into the temporary folder as clapper-clap-*; one unpacked to a folder
// goes first into .NAME.unpack-* beside it. Each names its owner in
// ownerFile.
const (
	tempPrefix  = "clapper-clap-"
	unpackInfix = ".unpack-"
	ownerFile   = "clapper-owner.json"
)

// SweepTemp removes the bundles' temporary copies in tmp whose process is
// gone (a command killed while it read a bundle), and returns them. A live
// command's copy is never touched.
func SweepTemp(tmp string) []string {
	return ownerlock.Sweep(filepath.Join(tmp, tempPrefix+"*"), ownerFile, nil)
}
