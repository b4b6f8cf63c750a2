package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/sys/unix"

	"github.com/clapper-dev/clapper/film"
	"github.com/clapper-dev/clapper/host"
	"github.com/clapper-dev/clapper/session"
)

// clapper doctor checks what clapper needs on this machine and says, for
// each thing missing, how to mend it. The probes live here; what they find
// is judged by the pure functions of doctor_checks.go.

type doctorOptions struct {
	chromium  string
	ffmpeg    string
	noSandbox bool
	out       string
	stateDir  string
	json      bool
}

func doctorCommand() *cli.Command {
	return &cli.Command{
		Name:  "doctor",
		Usage: "check Chromium, its sandbox, ffmpeg, fonts and disk space here, with a fix for each problem",
		Description: "Checks Chromium and its version, chromium-headless-shell, ffmpeg and ffprobe with the encoders and filters clapper\n" +
			"uses, fonts, whether the sandbox starts, /dev/shm, free space in the temporary and output folders, and the state\n" +
			"folder for shared browsers. Each problem is printed with its fix; exit 1 if any. As root, pass --no-sandbox as your\n" +
			"runs will.\n" +
			"Example: clapper doctor",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "chromium", EnvVars: []string{"CLAPPER_CHROMIUM"}, Usage: "Chromium executable to check"},
			&cli.StringFlag{Name: "ffmpeg", EnvVars: []string{"CLAPPER_FFMPEG"}, Usage: "ffmpeg executable to check"},
			&cli.BoolFlag{Name: "no-sandbox", EnvVars: []string{"CLAPPER_NO_SANDBOX"}, Usage: "check Chromium as your runs will start it, without its sandbox"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Value: "out", Usage: "output folder whose free space to check"},
			&cli.StringFlag{Name: "state-dir", EnvVars: []string{"CLAPPER_STATE_DIR"}, Usage: "state folder for shared browsers (default $XDG_STATE_HOME/clapper or ~/.local/state/clapper)"},
			&cli.BoolFlag{Name: "json", Usage: "print the checks as JSON"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usageErr("doctor takes no arguments")
			}
			return doctor(c.Context, doctorOptions{
				chromium: c.String("chromium"), ffmpeg: c.String("ffmpeg"), noSandbox: c.Bool("no-sandbox"),
				out: c.String("out"), stateDir: c.String("state-dir"), json: c.Bool("json"),
			}, os.Stdout)
		},
	}
}

// doctor runs every check, prints the report to w and fails (exit 1) when
// any check failed.
func doctor(ctx context.Context, o doctorOptions, w io.Writer) error {
	checks := diagnose(ctx, o)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var failed []string
	for _, c := range checks {
		if !c.OK {
			failed = append(failed, c.Name)
		}
	}
	if o.json {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			Version string  `json:"version"`
			OK      bool    `json:"ok"`
			Checks  []check `json:"checks"`
		}{version, len(failed) == 0, checks}); err != nil {
			return err
		}
	} else {
		printChecks(w, checks)
	}
	if len(failed) > 0 {
		return &exitError{Code: exitFailed, Err: &quietError{Err: fmt.Errorf("%d of %d checks failed: %s", len(failed), len(checks), strings.Join(failed, ", "))}}
	}
	return nil
}

// printChecks writes the report for people: a line per check, the fix
// under each failed one, and the tally.
func printChecks(w io.Writer, checks []check) {
	width := 0
	for _, c := range checks {
		width = max(width, len(c.Name))
	}
	fmt.Fprintf(w, "clapper %s\n", version)
	var failed []string
	for _, c := range checks {
		mark := "ok  "
		if !c.OK {
			mark = "FAIL"
			failed = append(failed, c.Name)
		}
		fmt.Fprintf(w, "  %s  %-*s  %s\n", mark, width, c.Name, c.Detail)
		if !c.OK {
			fmt.Fprintf(w, "        %*s  fix: %s\n", width, "", c.Fix)
		}
	}
	if len(failed) == 0 {
		fmt.Fprintf(w, "all %d checks passed\n", len(checks))
		return
	}
	fmt.Fprintf(w, "%d of %d checks failed: %s\n", len(failed), len(checks), strings.Join(failed, ", "))
}

// diagnose probes this machine and judges what it found, in the order the
// report lists it.
func diagnose(ctx context.Context, o doctorOptions) []check {
	chromium := probeTool(ctx, func() (string, error) { return film.FindChromium(o.chromium) }, "--version")
	shell := probeTool(ctx, func() (string, error) { return exec.LookPath("chromium-headless-shell") }, "--version")
	ffmpeg := probeTool(ctx, func() (string, error) { return film.LookFFmpeg(o.ffmpeg) }, "-version")
	ffprobe := probeTool(ctx, func() (string, error) { return exec.LookPath("ffprobe") }, "-version")
	cs := []check{chromiumCheck(chromium), headlessShellCheck(shell), sandboxCheck(probeSandbox(ctx, o.noSandbox, chromium)),
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
	cs = append(cs, shmCheck(statSpace("/dev/shm")))
	cs = append(cs, spaceCheck("temp folder", os.TempDir(), statSpace(os.TempDir()), minTempSpace,
		"free space there, or point TMPDIR at a folder with room (Chromium's profile and shared memory go there)"))
	cs = append(cs, spaceCheck("output folder", o.out, statSpace(o.out), minOutputSpace,
		"free space there, or choose another output folder with -o DIR"))
	home, _ := os.UserHomeDir()
	dir, from, rerr := host.StateDirOf(o.stateDir, os.Getenv, home)
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
