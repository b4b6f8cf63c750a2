package film

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/clapper-dev/clapper/internal/exit"
	"github.com/clapper-dev/clapper/timeline"
	"github.com/clapper-dev/clapper/viewer"
)

// WriteReport verifies the take (folder or bundle) and writes its report,
// saying where, how big, and where its frames are.
func WriteReport(ctx context.Context, arg, out, frames string, ui *UI) (*viewer.Result, error) {
	if _, err := os.Stat(filepath.Dir(out)); err != nil {
		return nil, exit.Usagef("cannot write %s: %v", out, err)
	}
	tk, done, err := OpenTakeWithPictures(ctx, arg, ui.errw)
	if err != nil {
		return nil, err
	}
	defer done()
	// openTakeArg refused a take with a manifest that fails; this also
	// refuses one without a manifest whose timeline or frame index is
	// inconsistent: a report must not present a broken take as evidence.
	v := timeline.Verify(tk.Dir)
	if err := RefuseUnverified(arg, v); err != nil {
		return nil, err
	}
	verified := "not verified: the take has no manifest"
	switch {
	case v.Manifest != nil:
		verified = fmt.Sprintf("verified: %d files match the manifest", len(v.Manifest.Files))
	}
	res, err := viewer.Write(tk, out, viewer.Options{Frames: frames, Manifest: v.Manifest, Verified: verified, Context: ctx})
	if err != nil {
		return nil, err
	}
	where := "embedded"
	if res.Mode == viewer.ModeFolder {
		where = "in " + res.FramesDir + "/ beside it (keep the two together; --frames embedded makes one file)"
	}
	ui.Printf("report: %s (%.1f MB, %d frames %s, %d in the filmstrip)\n", res.Path, float64(res.Bytes)/1e6, res.Frames, where, res.Thumbs)
	return res, nil
}

// afterRun writes the take's report when asked (--view).
func afterRun(ctx context.Context, takeDir, out string, view bool, ui *UI) error {
	if !view {
		return nil
	}
	if _, err := WriteReport(ctx, takeDir, filepath.Join(out, "report.html"), "auto", ui); err != nil {
		return fmt.Errorf("write the report: %w", err)
	}
	return nil
}

// viewHint tells, after a failed run, where the take is and how to see
// the failure.
func viewHint(takeDir, out string, viewed bool) string {
	if viewed {
		return fmt.Sprintf("the take is in %s; its report, %s, shows the failure (open it in a browser)", takeDir, filepath.Join(out, "report.html"))
	}
	return fmt.Sprintf("the take is in %s; see the failure with: clapper view %s --open", takeDir, takeDir)
}
