package compositor

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// With names from a take, a file that appears at a destination after it
// was reserved is still not replaced: the publish fails naming it.
func TestPublishNewOnlyNeverReplaces(t *testing.T) {
	for _, folder := range []bool{false, true} {
		dir := t.TempDir()
		out := filepath.Join(dir, "v.mp4")
		if folder {
			out = filepath.Join(dir, "frames.png")
		}
		p := &publisher{newOnly: true}
		tmp, err := p.reserve(out, folder)
		if err != nil {
			t.Fatal(err)
		}
		if !folder {
			os.WriteFile(tmp, []byte("rendered"), 0o644)
		}
		dest := out
		if folder {
			dest = pngFolder(out)
			os.Mkdir(dest, 0o755) // empty: rename(2) would replace it
		} else {
			os.WriteFile(dest, []byte("the user's"), 0o644)
		}
		err = p.commit()
		var ee *ExistsError
		if !errors.As(err, &ee) || ee.Path != dest {
			t.Errorf("folder %v: commit over a file that appeared = %v, want an ExistsError naming %s", folder, err, dest)
		}
		if !folder {
			if b, _ := os.ReadFile(dest); string(b) != "the user's" {
				t.Errorf("the file that appeared was replaced: %q", b)
			}
		}
		p.abort()
		if _, err := p.reserve(out, folder); !errors.As(err, &ee) {
			t.Errorf("folder %v: reserve of an existing name = %v, want an ExistsError", folder, err)
		}
	}
}

// An ffmpeg killed by a signal is named by its signal, not "status -1".
func TestFFmpegKilledNamesTheSignal(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "ffmpeg")
	os.WriteFile(fake, []byte("#!/bin/sh\nkill -SEGV $$\n"), 0o755)
	err := runFFmpeg(context.Background(), fake, nil, tuning{}, func(w io.Writer) error { return nil })
	var fe *FFmpegError
	if !errors.As(err, &fe) || fe.Signal != syscall.SIGSEGV || !strings.Contains(err.Error(), "killed by signal 11 (SIGSEGV)") {
		t.Errorf("ffmpeg killed by SIGSEGV: %v", err)
	}
}

// A render.json that is a pipe is refused at once, not waited on.
func TestRenderConfigPipeRefused(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, RenderFile), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRenderConfig(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("render.json as a pipe: %v", err)
	}
}
