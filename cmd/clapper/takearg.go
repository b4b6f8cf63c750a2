package main

import (
	"fmt"
	"os"

	"github.com/clapper-dev/clapper/bundle"
	"github.com/clapper-dev/clapper/timeline"
)

// takeArg resolves a command's TAKE argument, a take folder or a .clap
// bundle: a bundle is unpacked (checked entry by entry against its
// manifest) into a temporary folder that done removes. A folder without a
// manifest opens with a warning.
func takeArg(path string) (dir string, done func(), err error) {
	if bundle.IsBundle(path) {
		return bundle.OpenTemp(path)
	}
	if _, err := os.Stat(path); err != nil {
		return "", nil, fmt.Errorf("%s: %w (pass a take folder such as out/quickstart/take, or a .clap bundle)", path, err)
	}
	if _, err := timeline.ReadManifest(path); os.IsNotExist(err) {
		if _, terr := os.Stat(path + "/" + timeline.TimelineFile); terr == nil {
			fmt.Fprintf(os.Stderr, "clapper: warning: %s: %s\n", path, timeline.NoManifestWarning)
		}
	}
	return path, func() {}, nil
}

// openTakeArg opens the take a command was given (folder or bundle).
func openTakeArg(path string) (*timeline.Take, func(), error) {
	dir, done, err := takeArg(path)
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
