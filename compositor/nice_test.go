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

// Rendering while capturing, ffmpeg runs in the idle class (withIdle), and
// the final render in the normal one: a niceness alone still took a share
// of the cores the capture needed.
func TestFFmpegRunsIdleWhileCapturing(t *testing.T) {
	for _, c := range []struct {
		ctx  context.Context
		want int // policy: SCHED_OTHER 0, SCHED_IDLE 5
	}{
		{context.Background(), 0},
		{withIdle(context.Background()), 5},
	} {
		dir := t.TempDir()
		out := filepath.Join(dir, "policy")
		fake := filepath.Join(dir, "policy-ffmpeg")
		script := "#!/bin/sh\ncat >/dev/null\ncut -d' ' -f41 /proc/$$/stat > '" + out + "'\n"
		if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := runFFmpeg(c.ctx, fake, nil, func(w io.Writer) error { _, err := w.Write([]byte("frames")); return err }); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := strconv.Atoi(strings.TrimSpace(string(b))); err != nil || got != c.want {
			t.Errorf("ffmpeg ran with scheduling policy %q, want %d", b, c.want)
		}
	}
}
