// Package doctor is clapper doctor's checks: probes of this machine
// (Chromium and whether its sandbox starts, the headless shell, ffmpeg and
// ffprobe with the encoders and filters clapper uses, fonts, what a page
// fault costs, /dev/shm, free space, the state folder) and the pure
// verdicts on what they found, each failed one with its fix. clapper
// doctor prints them.
package doctor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/clapper-dev/clapper/compositor"
	"github.com/clapper-dev/clapper/host"
	"github.com/clapper-dev/clapper/internal/procfs"
	"github.com/clapper-dev/clapper/session"
)

// Options say what to check: the Chromium and ffmpeg a run would use,
// whether runs start Chromium without its sandbox, the output folder and
// the state folder ("" for the default).
type Options struct {
	Chromium  string
	FFmpeg    string
	NoSandbox bool
	Out       string
	StateDir  string
}

// Diagnose probes this machine and judges what it found, in the order the
// report lists it.
func Diagnose(ctx context.Context, o Options) []Check {
	chromium := probeTool(ctx, func() (string, error) { return session.FindChromium(o.Chromium) }, "--version")
	shell := probeTool(ctx, func() (string, error) { return exec.LookPath("chromium-headless-shell") }, "--version")
	ffmpeg := probeTool(ctx, func() (string, error) { return compositor.LookFFmpeg(o.FFmpeg) }, "-version")
	ffprobe := probeTool(ctx, func() (string, error) { return exec.LookPath("ffprobe") }, "-version")
	cs := []Check{chromiumCheck(chromium), headlessShellCheck(shell), sandboxCheck(probeSandbox(ctx, o.NoSandbox, chromium)),
		ffmpegCheck(ffmpeg), ffprobeCheck(ffprobe)}
	var encoders, filters string
	err := ffmpeg.findErr
	if err == nil {
		encoders, err = runProbe(ctx, ffmpeg.path, "-hide_banner", "-encoders")
	}
	if err == nil {
		filters, err = runProbe(ctx, ffmpeg.path, "-hide_banner", "-filters")
	}
	cs = append(cs, codecsCheck(encoders, filters, err))
	cs = append(cs, fontChecks(func(p string) ([]string, error) { return fcList(ctx, p) })...)
	faults, ferr := procfs.PageFaultCost()
	cs = append(cs, memoryCheck(faults, ferr, thp{enabled: chosen(thpDir + "enabled"), shmem: chosen(thpDir + "shmem_enabled")}))
	cs = append(cs, shmCheck(statSpace("/dev/shm")))
	cs = append(cs, spaceCheck("temp folder", os.TempDir(), statSpace(os.TempDir()), minTempSpace,
		"free space there, or point TMPDIR at a folder with room (Chromium's profile and shared memory go there)"))
	cs = append(cs, spaceCheck("output folder", o.Out, statSpace(o.Out), minOutputSpace,
		"free space there, or choose another output folder with -o DIR"))
	home, _ := os.UserHomeDir()
	dir, from, rerr := host.StateDirOf(o.StateDir, os.Getenv, home)
	var f folder
	if rerr == nil {
		f = probeFolder(dir)
	}
	return append(cs, stateCheck(dir, from, rerr, f))
}

// probeLimit bounds each probe: reaching it means the tool hangs.
const probeLimit = 60 * time.Second

// probeTool finds a tool and asks it for its version.
func probeTool(ctx context.Context, find func() (string, error), args ...string) tool {
	p, err := find()
	if err != nil {
		return tool{findErr: err}
	}
	out, err := runProbe(ctx, p, args...)
	return tool{path: p, out: out, runErr: err}
}

// runProbe runs a tool in its own process group, bounded by probeLimit
// and ctx, and returns its standard output; a failure carries the tail
// of its standard error.
func runProbe(ctx context.Context, bin string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, probeLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		tail := strings.TrimSpace(stderr.String())
		if len(tail) > 512 {
			tail = "…" + tail[len(tail)-512:]
		}
		if tail != "" {
			return stdout.String(), fmt.Errorf("%s: %w: %s", filepath.Base(bin), err, tail)
		}
		return stdout.String(), fmt.Errorf("%s: %w", filepath.Base(bin), err)
	}
	return stdout.String(), nil
}

// probeSandbox starts Chromium as clapper's runs do, with the sandbox on
// unless noSandbox, and closes it again. As root without the choice it
// launches nothing: session.Launch refuses.
func probeSandbox(ctx context.Context, noSandbox bool, chromium tool) sandboxFacts {
	f := sandboxFacts{euid: os.Geteuid(), noSandbox: noSandbox, chromium: chromium.findErr,
		maxUserNS: readSysctl("/proc/sys/user/max_user_namespaces"), unprivClone: readSysctl("/proc/sys/kernel/unprivileged_userns_clone"),
		apparmor: readSysctl("/proc/sys/kernel/apparmor_restrict_unprivileged_userns"), container: inContainer()}
	if f.euid == 0 && !noSandbox {
		f.launch = session.ErrRootNeedsNoSandbox
		return f
	}
	if chromium.findErr != nil {
		return f
	}
	ctx, cancel := context.WithTimeout(ctx, probeLimit)
	defer cancel()
	b, err := session.Launch(ctx, session.LaunchOptions{Path: chromium.path, Headless: true, NoSandbox: noSandbox, Width: 640, Height: 360})
	if err != nil {
		f.launch = err
		return f
	}
	b.Close()
	return f
}

// readSysctl reads a number from /proc/sys, -1 when there is none.
func readSysctl(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return -1
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return -1
	}
	return n
}

// inContainer reports the marks Docker, Podman and Kubernetes leave.
func inContainer() bool {
	for _, p := range []string{"/.dockerenv", "/run/.containerenv"} {
		if _, err := os.Stat(p); err == nil {
			return true
		}
	}
	return os.Getenv("KUBERNETES_SERVICE_HOST") != ""
}

// fcList lists the font families fontconfig matches to pattern.
func fcList(ctx context.Context, pattern string) ([]string, error) {
	bin, err := exec.LookPath("fc-list")
	if err != nil {
		return nil, errNoFCList
	}
	out, err := runProbe(ctx, bin, pattern, "family")
	if err != nil {
		return nil, err
	}
	var fams []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			fams = append(fams, l)
		}
	}
	slices.Sort(fams) // fc-list lists in no set order
	return fams, nil
}

// statSpace measures the file system of path, or of its nearest existing
// ancestor when it does not exist yet.
func statSpace(path string) space {
	p, err := existing(path)
	if err != nil {
		return space{path: path, err: err}
	}
	var st unix.Statfs_t
	if err := unix.Statfs(p, &st); err != nil {
		return space{path: p, err: err}
	}
	bs := uint64(st.Bsize)
	return space{path: p, total: st.Blocks * bs, avail: st.Bavail * bs}
}

// existing returns path, or its nearest ancestor that exists.
func existing(path string) (string, error) {
	p, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		} else if !missing(err) {
			return "", err
		}
		up := filepath.Dir(p)
		if up == p {
			return "", fmt.Errorf("no part of %s exists", path)
		}
		p = up
	}
}

// missing reports a path that does not exist: nothing there, or a file
// where a folder of the path should be.
func missing(err error) bool {
	return errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// probeFolder looks at a folder that may not exist yet.
func probeFolder(dir string) folder {
	writable := func(p string) bool { return unix.Access(p, unix.W_OK|unix.X_OK) == nil }
	st, err := os.Stat(dir)
	if err == nil {
		return folder{exists: true, isDir: st.IsDir(), writable: writable(dir)}
	}
	if !missing(err) {
		return folder{err: err}
	}
	a, err := existing(dir)
	if err != nil {
		return folder{err: err}
	}
	st, err = os.Stat(a)
	if err != nil {
		return folder{err: err}
	}
	return folder{ancestor: a, ancestorIsDir: st.IsDir(), ancestorWritable: writable(a)}
}

// chosen is the bracketed value of a kernel setting that lists its
// choices ("always [madvise] never" gives madvise), or "" when it cannot
// be read.
func chosen(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	_, after, ok := strings.Cut(string(b), "[")
	v, _, ok2 := strings.Cut(after, "]")
	if !ok || !ok2 {
		return ""
	}
	return v
}
