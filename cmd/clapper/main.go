// Command clapper turns a YAML run script into browser footage: it drives a
// Chromium it owns, records every frame and input on one clock into a take,
// and renders the take to video. Each verb lives in its own file; this one
// builds the app and maps errors to exit codes.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/clapper-dev/clapper/internal/exit"
	"github.com/clapper-dev/clapper/timeline"

	"github.com/urfave/cli/v2"
)

// Exit codes. A run ended by a signal exits as shells report a process
// killed by it, 128 + the signal's number: 129 for SIGHUP (its terminal
// closed), 130 for SIGINT (Ctrl-C), 143 for SIGTERM (kill, a CI job's
// timeout, docker stop), so a caller can tell them apart.
const (
	exitOK          = exit.OK
	exitFailed      = exit.Failed                // a step or expectation failed, or the run broke
	exitUsage       = exit.Usage                 // usage or script error
	exitInterrupted = 128 + int(syscall.SIGINT)  // 130
	exitTerminated  = 128 + int(syscall.SIGTERM) // 143
)

// exitError carries an exit code with its error; quietError is an error
// already reported to the user in full.
type (
	exitError  = exit.Error
	quietError = exit.Quiet
)

var usageErr = exit.Usagef

func newApp() *cli.App {
	app := &cli.App{
		Name:    "clapper",
		Usage:   "turn a YAML run script into browser footage you can trust",
		Version: version,
		Description: "clapper drives Chromium with real input and renders a video with a smooth cursor and zoom; each run also\n" +
			"keeps a take, the evidence of every step, frame and input. The guides are in docs/ and the language reference\n" +
			"is docs/reference.md (clapper schema --markdown); clapper COMMAND --help says more of each command.\n" +
			"Example: clapper new demo --url https://example.com && clapper run demo.yaml",
		Commands: []*cli.Command{
			runCommand(), validateCommand(), schemaCommand(), inspectCommand(), renderCommand(), recoverCommand(), benchCommand(), doctorCommand(), newCommand(),
			browserCommand(), leasesCommand(), releaseCommand(),
			verifyCommand(), packCommand(), unpackCommand(), viewCommand(), diffCommand(), replayCommand(), mergeCommand(),
		},
		HideHelpCommand: true,
		// An argument that is no command is a usage error (exit 2).
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageErr("no command %q: see clapper --help", c.Args().First())
			}
			return cli.ShowAppHelp(c)
		},
		ExitErrHandler: func(*cli.Context, error) {}, // main maps errors to codes
		OnUsageError:   usageError,
	}
	// urfave/cli asks each command, not the app, about its own flags.
	var each func([]*cli.Command)
	each = func(cs []*cli.Command) {
		for _, c := range cs {
			c.OnUsageError = usageError
			each(c.Subcommands)
		}
	}
	each(app.Commands)
	return app
}

// usageError makes a flag the parser refused a usage error (exit 2).
func usageError(_ *cli.Context, err error, _ bool) error {
	return &exitError{Code: exitUsage, Err: err}
}

func main() {
	ctx, stop := signalContext(context.Background())
	closeInheritedOnExec()
	code := runApp(ctx, os.Args, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// runApp runs clapper with args (the program's name first) as main does,
// its output on stdout and stderr, and returns its exit code. Everything
// a command says goes to these two (the app's Writer and ErrWriter), so
// the tests run the commands in process.
func runApp(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	app := newApp()
	app.Writer, app.ErrWriter = stdout, stderr
	args, err := hoistFlags(app, args)
	if err == nil {
		err = app.RunContext(ctx, args)
	}
	code := exitCode(ctx, err)
	if err != nil && code != exitOK {
		var quiet *quietError
		var sig *signalled
		switch {
		case errors.As(context.Cause(ctx), &sig):
			fmt.Fprintf(stderr, "clapper: stopped by %s\n", sig)
		case !errors.As(err, &quiet):
			// An error may quote a page (a step's failure): escaped visibly.
			fmt.Fprintln(stderr, "clapper:", timeline.Printable(err.Error()))
		}
	}
	return code
}

// signalled is the cause of a context cancelled by a signal.
type signalled struct{ sig syscall.Signal }

func (s *signalled) Error() string {
	switch s.sig {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return s.sig.String()
}

// signalContext returns a context cancelled on SIGINT, SIGTERM or SIGHUP
// (the terminal closed), with the
// signal as its cause (context.Cause), and the function that stops
// listening. Its goroutine is owned by stop, which waits for it; later
// signals are ignored until stop, so clean-up runs once.
func signalContext(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	quit := make(chan struct{})
	ended := make(chan struct{})
	go func() { // owned by stop: ends on the first signal or when stop is called
		defer close(ended)
		select {
		case s := <-ch:
			sig, _ := s.(syscall.Signal)
			cancel(&signalled{sig})
		case <-quit:
		}
	}()
	return ctx, func() {
		close(quit)
		<-ended
		signal.Stop(ch)
		cancel(context.Canceled)
	}
}

// exitCode maps an error to the process's exit code, in one place: a run
// ended by a signal exits 128 + its number (129, 130, 143), and only such
// a run. Any other cancellation (a deadline inside a step, a dialog, a
// browser that went away) is a failure, 1: 130 means Ctrl-C to a shell.
func exitCode(ctx context.Context, err error) int {
	if err == nil {
		return exitOK
	}
	var s *signalled
	if errors.As(context.Cause(ctx), &s) && s.sig > 0 {
		return 128 + int(s.sig)
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	return exitFailed
}

// closeInheritedOnExec marks the descriptors clapper inherited, past
// standard input, output and error, close-on-exec: the browser and ffmpeg
// it starts hold none of them (a CI wrapper's lock, a pipe the wrapper
// waits on). Go opens its own with close-on-exec already.
func closeInheritedOnExec() {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range ents {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
}
