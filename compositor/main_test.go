package compositor

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestMain fails the run when tests leave ffmpeg processes or render work
// folders behind.
func TestMain(m *testing.M) {
	before := workDirs()
	code := m.Run()
	if kids := children(); len(kids) > 0 {
		fmt.Fprintf(os.Stderr, "leak: child processes still running: %v\n", kids)
		code = 1
	}
	for d := range workDirs() {
		if !before[d] {
			fmt.Fprintf(os.Stderr, "leak: render work folder left: %s\n", d)
			code = 1
		}
	}
	os.Exit(code)
}

func workDirs() map[string]bool {
	m := map[string]bool{}
	ds, _ := filepath.Glob(filepath.Join(os.TempDir(), "clapper-render-*"))
	for _, d := range ds {
		m[d] = true
	}
	return m
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
