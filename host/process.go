package host

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/clapper-dev/clapper/internal/exit"
	"github.com/clapper-dev/clapper/timeline"
)

// The host as a process of its own: started in the background (Detach)
// and stopped (Stop).

// Detach starts the host as a process of its own, in a new session so
// the terminal's signals do not reach it, logging to the state folder,
// and returns once it has recorded its endpoint: its record and the log's
// path. argv is the command that runs the host in the foreground with o
// (clapper browser start and its flags); Detach runs it as it is.
func Detach(ctx context.Context, o Options, argv []string) (Record, string, error) {
	if err := os.MkdirAll(o.StateDir, 0o700); err != nil {
		return Record{}, "", fmt.Errorf("state folder: %w", err)
	}
	if rec, owner, ok := Live(o.StateDir); ok {
		return Record{}, "", exit.Usagef("a browser host already runs in %s (%s, at %s): use it with --browser shared, or stop it with clapper browser stop", o.StateDir, owner, rec.Endpoint)
	}
	logPath := filepath.Join(o.StateDir, LogFile)
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return Record{}, "", fmt.Errorf("host log: %w", err)
	}
	defer log.Close()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return Record{}, "", fmt.Errorf("start the host: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }() // owned by this call while it waits; the process outlives it once up
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(60 * time.Second)
	for {
		if rec, _, ok := Live(o.StateDir); ok && rec.Pid == cmd.Process.Pid {
			return rec, logPath, nil
		}
		select {
		case err := <-exited:
			return Record{}, "", fmt.Errorf("the host exited at start (%v); its log, %s:\n%s", err, logPath, tailOf(logPath))
		case <-deadline:
			_ = cmd.Process.Signal(syscall.SIGTERM)
			return Record{}, "", fmt.Errorf("the host did not come up within 60s; its log, %s:\n%s", logPath, tailOf(logPath))
		case <-ctx.Done():
			_ = cmd.Process.Signal(syscall.SIGTERM)
			<-exited
			return Record{}, "", context.Cause(ctx)
		case <-tick.C:
		}
	}
}

// Stop asks the host of dir to end (SIGTERM), waits for it, and returns
// its cleanup receipt, which it removes. ok is false when no host runs;
// the files of one that died are removed then.
func Stop(ctx context.Context, dir string) (c timeline.Cleanup, ok bool, err error) {
	_, owner, ok := Live(dir)
	if !ok {
		if owner != nil && !owner.Alive() {
			os.Remove(filepath.Join(dir, RecordFile))
			os.Remove(filepath.Join(dir, LockFile))
		}
		return c, false, nil
	}
	if err := syscall.Kill(owner.Pid, syscall.SIGTERM); err != nil {
		return c, true, fmt.Errorf("stop host pid %d: %w", owner.Pid, err)
	}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(60 * time.Second)
	for owner.Alive() {
		select {
		case <-tick.C:
		case <-deadline:
			return c, true, fmt.Errorf("host pid %d did not stop within 60s", owner.Pid)
		case <-ctx.Done():
			return c, true, context.Cause(ctx)
		}
	}
	c, err = Receipt(dir)
	if err != nil {
		return c, true, fmt.Errorf("host pid %d stopped, but left no cleanup receipt: %w", owner.Pid, err)
	}
	os.Remove(filepath.Join(dir, ReceiptFile))
	return c, true, nil
}

// tailOf is the last ten lines of a log.
func tailOf(path string) string {
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 10 {
		lines = lines[len(lines)-10:]
	}
	return strings.Join(lines, "\n")
}
