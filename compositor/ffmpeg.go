package compositor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// ErrNoFFmpeg is returned (wrapped) when the ffmpeg binary cannot be found.
var ErrNoFFmpeg = errors.New("ffmpeg not found")

// FFmpegError is an ffmpeg run that exited with a non-zero status.
type FFmpegError struct {
	// Args is the command line, program first.
	Args []string
	// Code is the exit status (-1 when ffmpeg was killed by a signal).
	Code int
	// StderrTail is the last few KiB of what ffmpeg printed on stderr.
	StderrTail string
	// Signal is the signal that killed ffmpeg (Code is then -1), or 0.
	Signal syscall.Signal
}

func (e *FFmpegError) Error() string {
	tail := strings.TrimSpace(e.StderrTail)
	if tail == "" {
		tail = "(nothing on stderr)"
	}
	if e.Signal != 0 {
		return fmt.Sprintf("ffmpeg was killed by signal %d (%s): %s", int(e.Signal), unix.SignalName(e.Signal), tail)
	}
	return fmt.Sprintf("ffmpeg exited with status %d: %s", e.Code, tail)
}

// stderrTailBytes bounds the stderr kept from an ffmpeg run.
const stderrTailBytes = 4 << 10

// tailBuffer keeps the last max bytes written to it. exec's stderr copier
// writes to it while the owner reads it after Wait.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if len(p) >= t.max {
		t.buf = append(t.buf[:0], p[len(p)-t.max:]...)
		return n, nil
	}
	if over := len(t.buf) + len(p) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	if len(b) == t.max {
		// Start the tail at a line boundary when one is near.
		if i := bytes.IndexByte(b, '\n'); i >= 0 && i < 256 {
			b = b[i+1:]
		}
	}
	return string(b)
}

// LookFFmpeg resolves the ffmpeg binary ("" for ffmpeg on PATH), with an
// error that says what to do: the advice clapper run, render and doctor
// give alike.
func LookFFmpeg(name string) (string, error) {
	if name == "" {
		name = "ffmpeg"
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%w (%s): install it with \"apt-get install ffmpeg\" or pass its path (--ffmpeg PATH, or CLAPPER_FFMPEG=PATH)", ErrNoFFmpeg, name)
	}
	return p, nil
}

// feedError marks an error reading the take, as opposed to writing to ffmpeg.
type feedError struct{ err error }

func (e feedError) Error() string { return e.err.Error() }
func (e feedError) Unwrap() error { return e.err }

// runFFmpeg runs ffmpeg with args (with ffmpegMalloc unless tune says to
// free memory),
// calling feed (on the caller's goroutine) to write its standard input.
// ffmpeg runs in its own process group, which is killed when ctx ends or
// when feed fails with a feedError; it is always waited for. A non-zero exit is an *FFmpegError with the stderr tail.
func runFFmpeg(ctx context.Context, bin string, args []string, tune tuning, feed func(w io.Writer) error) error {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Env = ffmpegEnv(os.Environ(), !tune.freeMemory)
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = 10 * time.Second
	tail := &tailBuffer{max: stderrTailBytes}
	cmd.Stderr = tail
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("start ffmpeg: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start ffmpeg: %w", err)
	}
	lowerPriority(cmd.Process.Pid)
	if idle := idleFrom(ctx); idle != nil {
		idle.start(cmd.Process.Pid)
		defer idle.stop(cmd.Process.Pid)
	}
	ferr := feed(stdin)
	var fe feedError
	if errors.As(ferr, &fe) {
		_ = killGroup(cmd)
	}
	cerr := stdin.Close()
	werr := cmd.Wait()
	if ctx.Err() != nil {
		return fmt.Errorf("render interrupted: %w", ctx.Err())
	}
	if errors.As(ferr, &fe) {
		return fe.err
	}
	if werr != nil {
		code := -1
		var sig syscall.Signal
		var ee *exec.ExitError
		if errors.As(werr, &ee) {
			code = ee.ExitCode()
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				sig = ws.Signal()
			}
		}
		return &FFmpegError{Args: append([]string{bin}, args...), Code: code, StderrTail: tail.String(), Signal: sig}
	}
	if ferr != nil {
		return fmt.Errorf("write frames to ffmpeg: %w", ferr)
	}
	if cerr != nil && !errors.Is(cerr, io.ErrClosedPipe) && !errors.Is(cerr, syscall.EPIPE) {
		return fmt.Errorf("write frames to ffmpeg: %w", cerr)
	}
	return nil
}

// ffmpegMalloc tells glibc's allocator in ffmpeg to keep the memory it
// frees for its next allocations. By default it hands a freed block of a
// picture's size (a 2560x1440 frame is 5.5 MB) back to the kernel, and
// the next frame's block is faulted in and zeroed page by page again,
// which costs system time (docs/internals.md, "ffmpeg's allocator"); the
// peak memory stays the same: what is kept is reused, never more than the
// run's largest need. Blocks under 32
// MiB (glibc's largest threshold) come from the heap, which is not
// trimmed under 1 GiB. Other C libraries ignore these variables.
var ffmpegMalloc = []string{"MALLOC_MMAP_THRESHOLD_=33554432", "MALLOC_TRIM_THRESHOLD_=1073741824"}

// ffmpegEnv is the environment ffmpeg runs with: environ, and with keep
// ffmpegMalloc's variables where environ does not set them (a user's own
// setting wins). It is pure.
func ffmpegEnv(environ []string, keep bool) []string {
	env := slices.Clone(environ)
	if !keep {
		return env
	}
	for _, kv := range ffmpegMalloc {
		name := kv[:strings.IndexByte(kv, '=')+1]
		if !slices.ContainsFunc(environ, func(e string) bool { return strings.HasPrefix(e, name) }) {
			env = append(env, kv)
		}
	}
	return env
}

func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		return cmd.Process.Kill()
	}
	return nil
}

// Idle runs the ffmpeg started under it (WithIdle) only on cores that
// would otherwise be idle, until End: rendering while capturing, where a
// frame of the page the encoder delays is a frame lost (live) or a slower
// take (studio). A niceness still takes a share of a busy core and lets
// the page's processes wait for it when they wake; an idle-class thread
// gives way at once. Safe for concurrent use.
type Idle struct {
	mu    sync.Mutex
	pids  map[int]bool
	ended bool
}

type idleKey struct{}

// WithIdle returns ctx with the ffmpeg runs under it in idle's class.
func WithIdle(ctx context.Context, idle *Idle) context.Context {
	return context.WithValue(ctx, idleKey{}, idle)
}

func idleFrom(ctx context.Context) *Idle { v, _ := ctx.Value(idleKey{}).(*Idle); return v }

// start puts ffmpeg (pid, just started: the threads it starts later
// inherit its class) in the idle class, unless End came first; stop
// forgets it. Best effort.
func (i *Idle) start(pid int) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.ended {
		return
	}
	if i.pids == nil {
		i.pids = map[int]bool{}
	}
	i.pids[pid] = true
	_ = unix.SchedSetAttr(pid, &unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_IDLE}, 0)
}

func (i *Idle) stop(pid int) {
	i.mu.Lock()
	delete(i.pids, pid)
	i.mu.Unlock()
}

// End returns the ffmpeg still running under idle (every thread of it) to
// the normal class, niced as any render, and keeps later ones there: the
// capture is over, and the chunk in hand is what the final render waits
// for, which the work of other processes on the machine must not starve.
func (i *Idle) End() {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.ended = true
	for pid := range i.pids {
		tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
		for _, t := range tasks {
			if tid, err := strconv.Atoi(t.Name()); err == nil {
				_ = unix.SchedSetAttr(tid, &unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_NORMAL, Nice: niceOf(renderNice)}, 0)
			}
		}
	}
}

// renderNice is the niceness ffmpeg runs at: below a capture's Chromium
// (another run's, on a shared machine, or this run's), so that encoding
// never takes the cores a live page needs to keep its frames.
const renderNice = 10

// lowerPriority makes ffmpeg's process group (every thread it has; those it
// starts later inherit it) nicer by renderNice than this process, at most
// 19. Best effort: a render at normal priority is still a render.
func lowerPriority(pgid int) {
	_ = syscall.Setpriority(syscall.PRIO_PGRP, pgid, int(niceOf(renderNice)))
}

// niceOf is the niceness more than this process's, at most 19.
func niceOf(more int) int32 {
	prio, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	if err != nil {
		return int32(min(19, more))
	}
	own := 20 - prio // the raw system call returns 20 - nice
	return int32(min(19, own+more))
}
