package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clapper-dev/clapper/internal/buildinfo"
	"github.com/clapper-dev/clapper/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

// clapperBin is the CLI built once for the tests that run it as a user does;
// builtDirty says whether the work tree was modified when it was built (the
// Makefile stamps that, and the tree may change while the tests run).
var (
	clapperBin string
	builtDirty bool
)

// TestMain builds the CLI as the Makefile does (make build, so with the
// version it stamps) inside testenv's private temporary folder and removes
// it after the tests, before the leak checks, which would report it
// otherwise; testenv.Main removes that folder and exits.
func TestMain(m *testing.M) { testenv.Main(withCLI{m}) }

type withCLI struct{ m *testing.M }

func (w withCLI) Run() int {
	dir, err := os.MkdirTemp("", "clapper-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	clapperBin = filepath.Join(dir, "clapper")
	if out, err := exec.Command("git", "-C", "../..", "status", "--porcelain").Output(); err == nil {
		builtDirty = len(strings.TrimSpace(string(out))) > 0
	}
	if out, err := exec.Command("make", "-s", "-C", "../..", "build", "BIN="+clapperBin).CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build clapper: %v\n%s", err, out)
		return 1
	}
	// The commands run in process stamp their takes as the built CLI does:
	// with the facts the Makefile passes it.
	cmd := exec.Command("git", "-C", "../..", "-c", "log.showSignature=false", "log", "-1", "--format=%H %cd", "--date=format-local:%Y-%m-%dT%H:%M:%SZ")
	cmd.Env = append(os.Environ(), "TZ=UTC")
	if out, err := cmd.Output(); err == nil {
		if rev, at, ok := strings.Cut(strings.TrimSpace(string(out)), " "); ok {
			buildStamp = buildinfo.Stamp{Revision: rev, Time: at, Modified: builtDirty}
			version, revision = buildinfo.Version(buildStamp, buildinfo.Read()), buildinfo.Revision(buildStamp, buildinfo.Read())
		}
	}
	return w.m.Run()
}

// The CLI is built inside the test binary's private temporary folder, which
// testenv.Main removes and checks for leftovers: never straight in /tmp.
func TestCLIBuiltInPrivateFolder(t *testing.T) {
	priv := os.TempDir()
	if !strings.HasPrefix(filepath.Base(priv), "clapper-test-") || filepath.Dir(filepath.Dir(clapperBin)) != priv {
		t.Errorf("clapper built at %s, want it in a folder of the private temporary folder %s", clapperBin, priv)
	}
}
