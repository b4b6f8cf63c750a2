package session

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
)

// A browser dies with the clapper that launched it: the parent-death
// signal (Pdeathsig) is set on the process clapper starts. Debian's
// /usr/bin/chromium-headless-shell is a shell script that starts the
// browser as its child rather than exec'ing it, so the signal reached the
// shell and the browser outlived a kill -9 of clapper, holding its
// DevTools port and every descriptor it inherited. So a wrapper script
// that names the program it starts (an absolute path in the script with
// the wrapper's own name) is skipped, and that program launched itself.
// /usr/bin/chromium names its program through variables and exec's it,
// which keeps the signal: it is launched as it is.

// maxWrapper bounds the script read to find the program it starts.
const maxWrapper = 64 << 10

// absPath finds absolute paths in a script.
var absPath = regexp.MustCompile(`/[A-Za-z0-9._/+-]+`)

// launchTarget is the executable to start for path: the program a
// wrapper script at path starts (see above), or path itself.
func launchTarget(path string) string {
	b, err := readHead(path, maxWrapper)
	if err != nil {
		return path
	}
	return wrappedProgram(path, b, isProgram)
}

// wrappedProgram is launchTarget's decision over the file's first bytes:
// a script ("#!") that names an absolute path ending in the wrapper's own
// name which is a program (isProgram) starts that program. Pure but for
// isProgram.
func wrappedProgram(path string, head []byte, isProgram func(string) bool) string {
	if !bytes.HasPrefix(head, []byte("#!")) {
		return path
	}
	name := filepath.Base(path)
	for _, m := range absPath.FindAll(head, -1) {
		p := filepath.Clean(string(m))
		if filepath.Base(p) == name && p != filepath.Clean(path) && isProgram(p) {
			return p
		}
	}
	return path
}

// isProgram says whether p is an executable ELF file (not another
// script).
func isProgram(p string) bool {
	st, err := os.Stat(p)
	if err != nil || !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0 {
		return false
	}
	b, err := readHead(p, 4)
	return err == nil && bytes.Equal(b, []byte("\x7fELF"))
}

// readHead reads at most n bytes from the start of a regular file.
func readHead(p string, n int) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, n)
	k, err := f.Read(b)
	if k > 0 {
		err = nil
	}
	return b[:k], err
}
