package compositor

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/clapper-dev/clapper/internal/procfs"

	"github.com/clapper-dev/clapper/internal/testenv"
)

// TestMain fails the run when tests leave ffmpeg processes or render work
// folders behind.
func TestMain(m *testing.M) {
	testenv.Main(m, func() []string {
		if kids := children(); len(kids) > 0 {
			return []string{fmt.Sprintf("child processes still running: %v", kids)}
		}
		return nil
	})
}

// children lists the live processes whose parent is this test binary.
func children() []string {
	var out []string
	for _, p := range procfs.List() {
		if p.PPid == os.Getpid() && !p.Zombie() {
			out = append(out, strconv.Itoa(p.Pid)+" "+p.Comm)
		}
	}
	return out
}
