package session

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/clapper-dev/clapper/internal/testenv"
	"github.com/clapper-dev/clapper/recorder"
	"github.com/clapper-dev/clapper/timeline"
)

// A disk that fills during the capture ends the run, live and studio: the
// step running or the next one fails naming the write and the full disk,
// the take keeps the frames written before and says it failed, and a
// studio pause does not wait out its bound on a clock nothing moves.
func TestFullDiskEndsTheRun(t *testing.T) {
	for _, mode := range []string{"live", "studio"} {
		t.Run(mode, func(t *testing.T) {
			body := "name: full\nserve: ./site\nsteps:\n  - goto: ${serve.url}/index.html\n  - pause: 2s\n  - pause: 2s\n  - pause: 2s\n"
			if mode == "studio" {
				testenv.Need(t, shellName)
				body = strings.Replace(body, "serve: ./site\n", "serve: ./site\nbrowser: {capture: studio}\n", 1)
			} else {
				testenv.Need(t, "chromium")
			}
			s := writeScript(t, body)
			const room = 5 // frames the disk takes
			var writes atomic.Int64
			o := RunOptions{TakeDir: t.TempDir() + "/take", Capture: recorder.Options{WriteFile: func(name string, data []byte) error {
				if writes.Add(1) > room {
					return &os.PathError{Op: "write", Path: name, Err: syscall.ENOSPC}
				}
				return os.WriteFile(name, data, 0o644)
			}}}
			res, err := Run(context.Background(), s, o)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if res.Failed == nil {
				t.Fatal("the run passed with a full disk")
			}
			if msg := res.Failed.Error(); !errors.Is(res.Failed.Err, syscall.ENOSPC) || !strings.Contains(msg, "no space left on device") || !strings.Contains(msg, "spool frame") || res.Failed.Index > 2 {
				t.Errorf("failure: %v (step %d)", res.Failed, res.Failed.Index+1)
			}
			tk, err := timeline.Open(o.TakeDir)
			if err != nil {
				t.Fatal(err)
			}
			if err := tk.Validate(); err != nil {
				t.Errorf("the take does not hold together: %v", err)
			}
			if d := tk.Timeline.Capture.Frames.Delivered; d != room {
				t.Errorf("%d frames kept, want the %d written", d, room)
			}
			if tk.Timeline.Outcome == timeline.RunOK {
				t.Errorf("the take says %q", tk.Timeline.Outcome)
			}
		})
	}
}
