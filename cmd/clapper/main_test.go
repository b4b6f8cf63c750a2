package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/clapper-dev/clapper/internal/testenv"
)

// clapperBin is the CLI built once for the tests that run it as a user does.
var clapperBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "clapper-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	clapperBin = filepath.Join(dir, "clapper")
	if out, err := exec.Command("go", "build", "-o", clapperBin, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build clapper: %v\n%s", err, out)
		os.Exit(1)
	}
	defer os.RemoveAll(dir)
	testenv.Main(m)
}
