package session

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/clapper-dev/clapper/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestMain(m *testing.M) {
	flag.Parse()
	before := testenv.Profiles()
	code := m.Run()
	if leaks := testenv.CheckLeaks(before); len(leaks) > 0 {
		for _, l := range leaks {
			fmt.Fprintln(os.Stderr, "leak:", l)
		}
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}
