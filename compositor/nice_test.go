package compositor

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// ffmpeg runs nicer than the process that renders, so a render never takes
// the cores a live capture needs. The fake ffmpeg reads its own niceness
// once its input is closed, long after the priority was set.
func TestFFmpegRunsNicer(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "nice")
	fake := filepath.Join(dir, "nice-ffmpeg")
	script := "#!/bin/sh\ncat >/dev/null\ncut -d' ' -f19 /proc/$$/stat > '" + out + "'\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	err := runFFmpeg(context.Background(), fake, nil, func(w io.Writer) error {
		_, err := w.Write([]byte("frames"))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("niceness %q: %v", b, err)
	}
	prio, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := min(19, 20-prio+renderNice); got != want {
		t.Errorf("ffmpeg ran at niceness %d, want %d (this process's + %d)", got, want, renderNice)
	}
}
