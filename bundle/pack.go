package bundle

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/clapper-dev/clapper/timeline"
)

// Ext is a bundle's file extension.
const Ext = ".clap"

// IsBundle reports whether path names a bundle (a file ending in .clap)
// rather than a take folder.
func IsBundle(path string) bool {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return false
	}
	return strings.HasSuffix(strings.ToLower(path), Ext)
}

// DefaultName is where pack writes a take's bundle when not told: beside
// the take, named for the run's output folder (out/qa-check/take becomes
// out/qa-check/qa-check.clap) or for the take folder itself.
func DefaultName(takeDir string) string {
	clean := filepath.Clean(takeDir)
	if filepath.Base(clean) == "take" {
		parent := filepath.Dir(clean)
		name := filepath.Base(parent)
		if abs, err := filepath.Abs(parent); err == nil {
			name = filepath.Base(abs)
		}
		return filepath.Join(parent, name+Ext)
	}
	return clean + Ext
}

// PackContext writes the take in dir to out as a bundle: manifest.json
// first, then every file the manifest lists, in its order. The take must
// verify (a bundle of a broken take would only carry the breakage along);
// it is written to a temporary file renamed into place. It stops,
// removing what it wrote, when ctx ends (Ctrl-C).
func PackContext(ctx context.Context, dir, out string) (*timeline.Manifest, error) {
	v := timeline.Verify(dir)
	if err := v.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	m := v.Manifest
	if m == nil {
		// A take older than manifests: the bundle carries one made now,
		// the folder is left as it is.
		tk, err := timeline.Open(dir)
		if err != nil {
			return nil, err
		}
		if m, err = timeline.BuildManifest(dir, tk.Timeline, timeline.ManifestInfo{}); err != nil {
			return nil, err
		}
	}
	mb, err := m.Encode()
	if err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".tmp-")
	if err != nil {
		return nil, fmt.Errorf("create bundle: %w", err)
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	zw, err := zstd.NewWriter(tmp, zstd.WithEncoderLevel(zstd.SpeedDefault))
	if err != nil {
		return nil, err
	}
	tw := tar.NewWriter(zw)
	mtime := m.Started.UTC().Truncate(time.Second)
	if mtime.Before(time.Unix(0, 0)) {
		mtime = time.Unix(0, 0)
	}
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: timeline.ManifestFile, Size: int64(len(mb)), Mode: 0o644, ModTime: mtime, Format: tar.FormatPAX}); err != nil {
		return nil, err
	}
	if _, err := tw.Write(mb); err != nil {
		return nil, err
	}
	dirs := map[string]bool{}
	for _, e := range m.Files {
		if d := filepath.ToSlash(filepath.Dir(e.Path)); d != "." && !dirs[d] {
			dirs[d] = true
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d + "/", Mode: 0o755, ModTime: mtime, Format: tar.FormatPAX}); err != nil {
				return nil, err
			}
		}
		if err := addFile(ctx, tw, dir, e.Path, mtime); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("write bundle: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("write bundle: %w", err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		return nil, fmt.Errorf("write bundle: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return nil, fmt.Errorf("write bundle: %w", err)
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return nil, fmt.Errorf("write bundle: %w", err)
	}
	done = true
	return m, nil
}

func addFile(ctx context.Context, tw *tar.Writer, dir, rel string, mtime time.Time) error {
	f, err := os.Open(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		return fmt.Errorf("pack %s: %w", rel, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("pack %s: not a plain file", rel)
	}
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: rel, Size: st.Size(), Mode: 0o644, ModTime: mtime, Format: tar.FormatPAX}); err != nil {
		return err
	}
	n, err := io.Copy(tw, ctxReader{ctx, f})
	if err == nil && n != st.Size() {
		err = errors.New("file changed while packing")
	}
	if err != nil {
		return fmt.Errorf("pack %s: %w", rel, err)
	}
	return nil
}
