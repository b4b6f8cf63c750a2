package plainfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// The most each kind of file may hold. A take that needs more is not one
// clapper wrote: the longest runs write a few MiB of timeline.
const (
	Timeline = 64 << 20  // timeline.json
	Journal  = 256 << 20 // journal.jsonl
	Frames   = 512 << 20 // frames.jsonl
	Manifest = 32 << 20  // manifest.json
	Render   = 1 << 20   // render.json
	Frame    = 64 << 20  // one frame picture
	Script   = 4 << 20   // a script, or a file it includes
)

// ErrNotRegular is a path that is a pipe, a device, a folder or a socket.
var ErrNotRegular = errors.New("not a regular file")

// ErrSymlink is a path whose last part is a symbolic link, where one is
// not followed.
var ErrSymlink = errors.New("is a symbolic link")

// ErrTooLarge is a file over its limit.
var ErrTooLarge = errors.New("too large")

// Open opens path for reading if it is a regular file of at most limit
// bytes. A symbolic link as the last part of path is refused unless
// follow is set. The open never blocks (a FIFO is opened non-blocking and
// then refused). what names the file in errors ("timeline.json").
func Open(path, what string, limit int64, follow bool) (*os.File, error) {
	flags := os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_CLOEXEC
	if !follow {
		flags |= syscall.O_NOFOLLOW
	}
	f, err := os.OpenFile(path, flags, 0)
	if errors.Is(err, syscall.ELOOP) && !follow {
		return nil, fmt.Errorf("%s %w: it must be a plain file", what, ErrSymlink)
	}
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: %w (%s)", what, ErrNotRegular, kind(st.Mode()))
	}
	if st.Size() > limit {
		f.Close()
		return nil, fmt.Errorf("%s: %w: %d bytes, and it may hold at most %s", what, ErrTooLarge, st.Size(), bytesOf(limit))
	}
	// Reads of a regular file never block; the flag only mattered for
	// the open.
	return f, nil
}

// ReadFile reads the whole of a file Open accepts, never more than limit
// bytes even if it grows while read.
func ReadFile(path, what string, limit int64, follow bool) ([]byte, error) {
	f, err := Open(path, what, limit, follow)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: %w: it grew past %s while read", what, ErrTooLarge, bytesOf(limit))
	}
	return b, nil
}

func kind(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a pipe"
	case m&os.ModeDevice != 0, m&os.ModeCharDevice != 0:
		return "a device"
	case m.IsDir():
		return "a folder"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return m.Type().String()
}

// bytesOf writes n bytes for a person: 64 MiB, 1.5 GiB, 300 bytes.
func bytesOf(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", n)
}
