package bundle

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/clapper-dev/clapper/timeline"
)

// keptTake is the take timeline's tests keep in the current format.
const keptTake = "../timeline/testdata/v2"

func TestPackUnpackRoundTrip(t *testing.T) {
	tmp := t.TempDir()
	clap := filepath.Join(tmp, "x.clap")
	m, err := PackContext(context.Background(), keptTake, clap)
	if err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(tmp, "out", "take")
	m2, err := UnpackContext(context.Background(), clap, dest, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if len(m2.Files) != len(m.Files) {
		t.Errorf("%d files unpacked, %d packed", len(m2.Files), len(m.Files))
	}
	if err := timeline.Verify(dest).Err(); err != nil {
		t.Fatal(err)
	}
	for _, e := range m.Files {
		a, _ := os.ReadFile(filepath.Join(keptTake, e.Path))
		b, _ := os.ReadFile(filepath.Join(dest, e.Path))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs after the round trip", e.Path)
		}
	}
	// Unpacking onto an existing folder is refused.
	if _, err := UnpackContext(context.Background(), clap, dest, DefaultLimits); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("unpack onto an existing folder: %v", err)
	}
	dir, done, err := OpenTempContext(context.Background(), clap)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := timeline.Open(dir); err != nil {
		t.Error(err)
	}
	done()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("OpenTempContext's folder left: %v", err)
	}
}

// A broken take is not packed.
func TestPackRefusesBrokenTake(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "take")
	if err := os.CopyFS(dir, os.DirFS(keptTake)); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "frames/000003.jpg"), []byte("no"), 0o644)
	if _, err := PackContext(context.Background(), dir, filepath.Join(tmp, "x.clap")); err == nil || !strings.Contains(err.Error(), "frames/000003.jpg") {
		t.Errorf("packed a broken take: %v", err)
	}
	if _, err := os.Stat(filepath.Join(tmp, "x.clap")); !os.IsNotExist(err) {
		t.Error("a bundle was left")
	}
}

// entry is one tar entry of a crafted bundle.
type entry struct {
	name string
	typ  byte
	body string
	link string
	size int64 // header size when it should lie; 0 means len(body)
}

func sum(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }

// manifestOf is a manifest listing files with their true checksums.
func manifestOf(files map[string]string) string {
	m := timeline.Manifest{Version: timeline.ManifestVersion, Tool: "clapper test", Capture: "screencast/jpeg"}
	for p, body := range files {
		m.Files = append(m.Files, timeline.Entry{Path: p, Size: int64(len(body)), SHA256: sum(body)})
	}
	b, _ := m.Encode()
	return string(b)
}

// craft writes a bundle of the entries, compressed with zstd.
func craft(t *testing.T, ents []entry) string {
	t.Helper()
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	for _, e := range ents {
		typ := e.typ
		if typ == 0 {
			typ = tar.TypeReg
		}
		size := int64(len(e.body))
		if e.size != 0 {
			size = e.size
		}
		if typ != tar.TypeReg {
			size = 0
		}
		h := &tar.Header{Typeflag: typ, Name: e.name, Linkname: e.link, Size: size, Mode: 0o644, Format: tar.FormatPAX}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if typ == tar.TypeReg {
			if e.size > int64(len(e.body)) {
				tw.Write(bytes.Repeat([]byte{0}, int(e.size)))
			} else {
				tw.Write([]byte(e.body))
			}
		}
	}
	tw.Close()
	var zb bytes.Buffer
	zw, _ := zstd.NewWriter(&zb)
	zw.Write(tb.Bytes())
	zw.Close()
	p := filepath.Join(t.TempDir(), "crafted.clap")
	if err := os.WriteFile(p, zb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Each hostile bundle is refused with a clear error, and leaves nothing:
// neither the take folder nor a temporary one beside it.
func TestUnpackRefusesHostileBundles(t *testing.T) {
	ok := map[string]string{"timeline.json": "{}"}
	man := manifestOf(ok)
	bomb := strings.Repeat("a", 64<<20)
	cases := []struct {
		name string
		ents []entry
		lim  Limits
		want string
	}{
		{"absolute path", []entry{{name: timeline.ManifestFile, body: man}, {name: "/etc/cron.d/x", body: "x"}}, DefaultLimits, "absolute path"},
		{"dot dot", []entry{{name: timeline.ManifestFile, body: man}, {name: "frames/../../x", body: "x"}}, DefaultLimits, "climbs out"},
		{"dot dot first", []entry{{name: "../manifest.json", body: man}}, DefaultLimits, "climbs out"},
		{"unclean path", []entry{{name: timeline.ManifestFile, body: man}, {name: "frames//x", body: "x"}}, DefaultLimits, "not a clean path"},
		{"backslash", []entry{{name: timeline.ManifestFile, body: man}, {name: `..\x`, body: "x"}}, DefaultLimits, "backslash"},
		{"symlink", []entry{{name: timeline.ManifestFile, body: man}, {name: "timeline.json", typ: tar.TypeSymlink, link: "/etc/passwd"}}, DefaultLimits, "is a link"},
		{"hard link", []entry{{name: timeline.ManifestFile, body: man}, {name: "timeline.json", typ: tar.TypeLink, link: "manifest.json"}}, DefaultLimits, "is a link"},
		{"character device", []entry{{name: timeline.ManifestFile, body: man}, {name: "tty", typ: tar.TypeChar}}, DefaultLimits, "devices"},
		{"fifo", []entry{{name: timeline.ManifestFile, body: man}, {name: "pipe", typ: tar.TypeFifo}}, DefaultLimits, "devices"},
		{"no manifest first", []entry{{name: "timeline.json", body: "{}"}}, DefaultLimits, "starts with its manifest"},
		{"manifest lists a path outside", []entry{{name: timeline.ManifestFile, body: manifestOf(map[string]string{"../evil": "x"})}}, DefaultLimits, "not a path inside the take"},
		{"unlisted entry", []entry{{name: timeline.ManifestFile, body: man}, {name: "timeline.json", body: "{}"}, {name: "evil.sh", body: "x"}}, DefaultLimits, "not listed"},
		{"altered entry", []entry{{name: timeline.ManifestFile, body: man}, {name: "timeline.json", body: "[]"}}, DefaultLimits, "SHA-256 does not match"},
		{"wrong size", []entry{{name: timeline.ManifestFile, body: man}, {name: "timeline.json", body: "{ }"}}, DefaultLimits, "manifest.json says 2"},
		{"missing entry", []entry{{name: timeline.ManifestFile, body: man}}, DefaultLimits, "which the bundle lacks"},
		{"duplicate entry", []entry{{name: timeline.ManifestFile, body: man}, {name: "timeline.json", body: "{}"}, {name: "timeline.json", body: "{}"}}, DefaultLimits, "appears twice"},
		{"too many files", []entry{{name: timeline.ManifestFile, body: manifestOf(map[string]string{"a": "1", "b": "2", "c": "3"})}, {name: "a", body: "1"}, {name: "b", body: "2"}, {name: "c", body: "3"}},
			Limits{MaxBytes: 1 << 20, MaxFiles: 3, MaxRatio: 50, Slack: 1 << 20}, "more than 3 files"},
		{"too large", []entry{{name: timeline.ManifestFile, body: man}, {name: "timeline.json", body: "{}", size: 2 << 20}},
			Limits{MaxBytes: 1 << 20, MaxFiles: 10, MaxRatio: 50, Slack: 1 << 20}, "more than 1048576 bytes"},
		{"unlisted folder", []entry{{name: timeline.ManifestFile, body: man}, {name: "timeline.json", body: "{}"}, {name: "extra/", typ: tar.TypeDir}}, DefaultLimits, "extra is a folder that holds no file"},
		{"folder before the manifest", []entry{{name: "frames/", typ: tar.TypeDir}, {name: timeline.ManifestFile, body: man}}, DefaultLimits, "starts with its manifest"},
		{"file where a folder should be", []entry{{name: timeline.ManifestFile, body: manifestOf(map[string]string{"frames": "x", "frames/000001.jpg": "y"})}, {name: "frames", body: "x"}, {name: "frames/000001.jpg", body: "y"}}, DefaultLimits, "lists frames both as a file and as a folder"},
		{"compression bomb", []entry{{name: timeline.ManifestFile, body: manifestOf(map[string]string{"frames.jsonl": bomb})}, {name: "frames.jsonl", body: bomb}},
			Limits{MaxBytes: 1 << 30, MaxFiles: 10, MaxRatio: 50, Slack: 1 << 20}, "times its compressed size"},
	}
	// A flood of folders: each is a header, an inode and a map entry.
	flood := []entry{{name: timeline.ManifestFile, body: man}}
	for i := range 20000 {
		flood = append(flood, entry{name: fmt.Sprintf("d%05d/", i), typ: tar.TypeDir})
	}
	flood = append(flood, entry{name: "timeline.json", body: "{}"})
	// A manifest padded with whitespace compresses to almost nothing.
	padded := func(n int) string { return strings.Replace(man, "{", "{"+strings.Repeat(" ", n), 1) }
	cases = append(cases, []struct {
		name string
		ents []entry
		lim  Limits
		want string
	}{
		{"folder flood past the file count", flood, Limits{MaxBytes: 1 << 30, MaxFiles: 10, MaxRatio: 50, Slack: 1 << 10}, "more than 10 files"},
		{"folder flood past the ratio", flood, Limits{MaxBytes: 1 << 30, MaxFiles: 1 << 20, MaxRatio: 50, Slack: 1 << 10}, "times its compressed size"},
		{"folder flood past the size", flood, Limits{MaxBytes: 1 << 20, MaxFiles: 1 << 20, MaxRatio: 1 << 20, Slack: 1 << 30}, "more than 1048576 bytes"},
		{"huge manifest", []entry{{name: timeline.ManifestFile, body: padded(maxManifest)}}, Limits{MaxBytes: 1 << 30, MaxFiles: 10, MaxRatio: 1 << 20, Slack: 1 << 30}, "more than the"},
		{"manifest bomb", []entry{{name: timeline.ManifestFile, body: padded(8 << 20)}, {name: "timeline.json", body: "{}"}}, Limits{MaxBytes: 1 << 30, MaxFiles: 10, MaxRatio: 50, Slack: 1 << 20}, "times its compressed size"},
		{"manifest lists too many files", []entry{{name: timeline.ManifestFile, body: manifestOf(map[string]string{"a": "1", "b": "2", "c": "3"})}}, Limits{MaxBytes: 1 << 20, MaxFiles: 3, MaxRatio: 50, Slack: 1 << 20}, "manifest.json lists 3 files"},
	}...)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := craft(t, c.ents)
			parent := t.TempDir()
			dest := filepath.Join(parent, "take")
			_, err := UnpackContext(context.Background(), src, dest, c.lim)
			if err == nil || !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want a refusal saying %q, got %v", c.want, err)
			}
			left, _ := os.ReadDir(parent)
			for _, l := range left {
				t.Errorf("left behind: %s", l.Name())
			}
		})
	}
}

// A bundle of endless PAX headers (tar reads through them within one
// Next) is refused by the stream's ratio bound, quickly, and leaves
// nothing.
func TestUnpackRefusesAMetaHeaderFlood(t *testing.T) {
	var one bytes.Buffer
	tw := tar.NewWriter(&one)
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "x", Format: tar.FormatPAX, PAXRecords: map[string]string{"comment": "flood"}}); err != nil {
		t.Fatal(err)
	}
	tw.Flush()
	// The PAX header's blocks, before the file's own header.
	meta := one.Bytes()[:len(one.Bytes())-512]
	var zb bytes.Buffer
	zw, _ := zstd.NewWriter(&zb)
	for range 200000 { // 200 MB of meta headers
		zw.Write(meta)
	}
	zw.Close()
	src := filepath.Join(t.TempDir(), "flood.clap")
	if err := os.WriteFile(src, zb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	parent := t.TempDir()
	_, err := UnpackContext(context.Background(), src, filepath.Join(parent, "take"), Limits{MaxBytes: 1 << 30, MaxFiles: 1 << 20, MaxRatio: 50, Slack: 1 << 20})
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "times its compressed size") {
		t.Fatalf("want a refusal of the ratio, got %v", err)
	}
	if left, _ := os.ReadDir(parent); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

func TestUnpackRefusesNotABundle(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.clap")
	os.WriteFile(p, []byte("PK\x03\x04 not zstd"), 0o644)
	parent := t.TempDir()
	if _, err := UnpackContext(context.Background(), p, filepath.Join(parent, "take"), DefaultLimits); !errors.Is(err, ErrRefused) {
		t.Errorf("got %v", err)
	}
	if left, _ := os.ReadDir(parent); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

func TestEntryName(t *testing.T) {
	for n, want := range map[string]string{"frames/": "frames", "frames/000001.jpg": "frames/000001.jpg", "timeline.json": "timeline.json"} {
		if got, err := entryName(n); err != nil || got != want {
			t.Errorf("entryName(%q) = %q, %v", n, got, err)
		}
	}
	for _, n := range []string{"", ".", "/x", "../x", "a/../b", "a/./b", "a\x00b", `a\b`, "./x"} {
		if _, err := entryName(n); err == nil {
			t.Errorf("entryName(%q) accepted", n)
		}
	}
}

func TestDefaultName(t *testing.T) {
	for in, want := range map[string]string{"out/qa-check/take": "out/qa-check/qa-check.clap", "out/qa-check/take/": "out/qa-check/qa-check.clap", "mytake": "mytake.clap"} {
		if got := DefaultName(in); got != want {
			t.Errorf("DefaultName(%q) = %q, want %q", in, got, want)
		}
	}
}

// Packing and unpacking stop when their context ends (Ctrl-C), and leave
// nothing: no bundle, no take folder, no temporary beside them.
func TestPackUnpackStopWithTheirContext(t *testing.T) {
	tmp := t.TempDir()
	clap := filepath.Join(tmp, "x.clap")
	if _, err := PackContext(context.Background(), keptTake, clap); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := t.TempDir()
	if _, err := PackContext(ctx, keptTake, filepath.Join(out, "y.clap")); !errors.Is(err, context.Canceled) {
		t.Errorf("pack: %v, want it stopped", err)
	}
	if _, err := UnpackContext(ctx, clap, filepath.Join(out, "take"), DefaultLimits); !errors.Is(err, context.Canceled) {
		t.Errorf("unpack: %v, want it stopped", err)
	}
	if _, _, err := OpenTempContext(ctx, clap); !errors.Is(err, context.Canceled) {
		t.Errorf("open: %v, want it stopped", err)
	}
	if left, _ := os.ReadDir(out); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

// A pruned take packs and unpacks: the bundle holds what is left, its
// manifest says what was pruned, and the unpacked take verifies.
func TestPackUnpackPrunedTake(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "take")
	if err := os.CopyFS(dir, os.DirFS(keptTake)); err != nil {
		t.Fatal(err)
	}
	n, _, err := timeline.Prune(dir, "passed", time.Now())
	if err != nil || n == 0 {
		t.Fatalf("prune: %d, %v", n, err)
	}
	clap := filepath.Join(tmp, "x.clap")
	if _, err := PackContext(context.Background(), dir, clap); err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(tmp, "out")
	m, err := UnpackContext(context.Background(), clap, dest, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if m.Pruned == nil || len(m.Pruned.Files) != n {
		t.Fatalf("unpacked manifest: %+v", m.Pruned)
	}
	v := timeline.Verify(dest)
	if err := v.Err(); err != nil || len(v.Warnings) != 1 {
		t.Fatalf("unpacked pruned take: %v, warnings %v", err, v.Warnings)
	}
}
