package compositor

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

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

// children lists the processes whose parent is this test binary.
func children() []string {
	self := strconv.Itoa(os.Getpid())
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces; split after ')'.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) > 1 && f[1] == self {
			out = append(out, e.Name()+" "+s[strings.IndexByte(s, '(')+1:i])
		}
	}
	return out
}
