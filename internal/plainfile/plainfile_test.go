package plainfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A pipe, a device, a folder, a link (unless followed) and a file over
// its limit are refused before they are read, at once, naming the limit.
func TestOpenRefusesWhatIsNotAPlainFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "plain")
	os.WriteFile(plain, []byte("0123456789"), 0o644)
	link := filepath.Join(dir, "link")
	os.Symlink(plain, link)
	big := filepath.Join(dir, "big")
	f, _ := os.Create(big)
	f.Truncate(Timeline + 1) // sparse: costs nothing
	f.Close()
	for _, c := range []struct {
		path   string
		follow bool
		want   error
		text   string
	}{
		{fifo, false, ErrNotRegular, "a pipe"},
		{"/dev/zero", true, ErrNotRegular, "a device"},
		{dir, false, ErrNotRegular, "a folder"},
		{link, false, ErrSymlink, "symbolic link"},
		{big, false, ErrTooLarge, "at most 64 MiB"},
	} {
		start := time.Now()
		_, err := ReadFile(c.path, "timeline.json", Timeline, c.follow)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.text) || !strings.HasPrefix(err.Error(), "timeline.json") {
			t.Errorf("%s: %v, want %v saying %q", c.path, err, c.want, c.text)
		}
		if time.Since(start) > time.Second {
			t.Errorf("%s: took %v", c.path, time.Since(start))
		}
	}
	if b, err := ReadFile(link, "script", Script, true); err != nil || string(b) != "0123456789" {
		t.Errorf("a followed link: %q, %v", b, err)
	}
	if _, err := ReadFile(plain, "x", 9, false); !errors.Is(err, ErrTooLarge) {
		t.Errorf("10 bytes with a limit of 9: %v", err)
	}
}
