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

// fakeFFmpeg is an ffmpeg that reads its input, then writes field n of
// its own /proc stat line (once the priorities have long been set) to the
// file it returns the path of.
func fakeFFmpeg(t *testing.T, n int) (bin, out string) {
	t.Helper()
	dir := t.TempDir()
	out = filepath.Join(dir, "stat")
	bin = filepath.Join(dir, "fake-ffmpeg")
	script := "#!/bin/sh\ncat >/dev/null\ncut -d' ' -f" + strconv.Itoa(n) + " /proc/$$/stat > '" + out + "'\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, out
}

// runFake runs the fake ffmpeg under ctx and returns the field it read;
// end, if given, is ended while it runs.
func runFake(t *testing.T, ctx context.Context, bin, out string, end *Idle) int {
	t.Helper()
	feedFake(t, ctx, bin, end)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	v, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("stat field %q: %v", b, err)
	}
	return v
}

// feedFake runs a fake ffmpeg bin under ctx, writing a few bytes to it;
// end, if given, is ended while it runs.
func feedFake(t *testing.T, ctx context.Context, bin string, end *Idle) {
	t.Helper()
	if err := runFFmpeg(ctx, bin, nil, tuning{}, func(w io.Writer) error {
		if end != nil {
			end.End()
		}
		_, err := w.Write([]byte("frames"))
		return err
	}); err != nil {
		t.Fatal(err)
	}
}

// ffmpeg runs nicer than the process that renders, so a render never takes
// the cores a live capture needs.
func TestFFmpegRunsNicer(t *testing.T) {
	bin, out := fakeFFmpeg(t, 19)
	got := runFake(t, context.Background(), bin, out, nil)
	prio, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := min(19, 20-prio+renderNice); got != want {
		t.Errorf("ffmpeg ran at niceness %d, want %d (this process's + %d)", got, want, renderNice)
	}
}

// Rendering while capturing, ffmpeg runs in the idle class (WithIdle)
// until the capture ends (Idle.End), and the final render in the normal
// one: a niceness alone still took a share of the cores the capture needed.
func TestFFmpegRunsIdleWhileCapturing(t *testing.T) {
	capturing, ended := &Idle{}, &Idle{}
	for _, c := range []struct {
		ctx  context.Context
		end  *Idle // ended while ffmpeg runs
		want int   // policy: SCHED_OTHER 0, SCHED_IDLE 5
	}{
		{context.Background(), nil, 0},
		{WithIdle(context.Background(), capturing), nil, 5},
		{WithIdle(context.Background(), ended), ended, 0},
		{WithIdle(context.Background(), ended), nil, 0}, // started after the end
	} {
		bin, out := fakeFFmpeg(t, 41)
		if got := runFake(t, c.ctx, bin, out, c.end); got != c.want {
			t.Errorf("ffmpeg ran with scheduling policy %d, want %d", got, c.want)
		}
	}
}
