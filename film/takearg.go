package film

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/clapper-dev/clapper/bundle"
	"github.com/clapper-dev/clapper/internal/exit"
	"github.com/clapper-dev/clapper/timeline"
)

// TakeArg resolves a command's TAKE argument, a take folder or a .clap
// bundle: a bundle is unpacked (checked entry by entry against its
// manifest) into a temporary folder that done removes. A folder without a
// manifest opens with a warning.
func TakeArg(ctx context.Context, path string, warn io.Writer) (dir string, done func(), err error) {
	if bundle.IsBundle(path) {
		return bundle.OpenTempContext(ctx, path)
	}
	if _, err := os.Stat(path); err != nil {
		return "", nil, fmt.Errorf("%s: %w (pass a take folder such as out/quickstart/take, or a .clap bundle)", path, err)
	}
	if _, err := timeline.ReadManifest(path); os.IsNotExist(err) {
		if _, terr := os.Stat(path + "/" + timeline.TimelineFile); terr == nil {
			fmt.Fprintf(warn, "clapper: warning: %s: %s\n", path, timeline.NoManifestWarning)
		}
	}
	return path, func() {}, nil
}

// CheckedTakeArg is TakeArg for the commands that show or render a take
// (inspect, render, view): a take that has a manifest is verified first,
// and one that fails is refused, exit 1, naming each problem, because an
// altered take is not evidence of the run that wrote it. A take without a
// manifest (older than manifests, or killed before it was sealed) opens
// as before, with the warning TakeArg printed.
func CheckedTakeArg(ctx context.Context, path string, warn io.Writer) (string, *timeline.Verification, func(), error) {
	dir, done, err := TakeArg(ctx, path, warn)
	if err != nil {
		return "", nil, nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, timeline.ManifestFile)); err != nil {
		return dir, nil, done, nil
	}
	v := timeline.Verify(dir)
	if err := RefuseUnverified(path, v); err != nil {
		done()
		return "", nil, nil, err
	}
	return dir, v, done, nil
}

// RefuseUnverified is the error for a take that failed verification, nil
// for one that passed.
func RefuseUnverified(path string, v *timeline.Verification) error {
	if v.OK() {
		return nil
	}
	return &exit.Error{Code: exit.Failed, Err: fmt.Errorf("%s was not opened: it does not match what clapper recorded (clapper verify %s lists the same problems)\n%w", path, path, v.Err())}
}

// OpenTakeArg opens the take a command was given (folder or bundle),
// checked as CheckedTakeArg does.
func OpenTakeArg(ctx context.Context, path string, warn io.Writer) (*timeline.Take, func(), error) {
	dir, _, done, err := CheckedTakeArg(ctx, path, warn)
	if err != nil {
		return nil, nil, err
	}
	tk, err := timeline.Open(dir)
	if err != nil {
		done()
		return nil, nil, err
	}
	return tk, done, nil
}

// OpenTakeWithPictures is OpenTakeArg for the commands that show or
// compare a take's pictures (view, diff, a baseline): a take whose
// pictures were pruned is refused, exit 1, saying so.
func OpenTakeWithPictures(ctx context.Context, path string, warn io.Writer) (*timeline.Take, func(), error) {
	tk, done, err := OpenTakeArg(ctx, path, warn)
	if err != nil {
		return nil, nil, err
	}
	if err := RefusePruned(path, tk.Dir); err != nil {
		done()
		return nil, nil, err
	}
	return tk, done, nil
}

// RefusePruned is the error for a take whose frame pictures were removed
// after its run (clapper run --keep failed), nil for a whole take.
func RefusePruned(path, dir string) error {
	m, err := timeline.ReadManifest(dir)
	if err != nil || m.Pruned == nil {
		return nil
	}
	return &exit.Error{Code: exit.Failed, Err: fmt.Errorf("%s: %s; film the script again (with --keep all in a suite) for a take that has them", path, timeline.PrunedWarning(m.Pruned))}
}
