// Command clapper turns a YAML run script into browser footage: it drives a
// Chromium it owns, records every frame and input on one clock into a take,
// and renders the take to video. Each verb lives in its own file; this one
// builds the app and maps errors to exit codes.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"
)

// Exit codes.
const (
	exitOK          = 0
	exitFailed      = 1 // a step or expectation failed, or the run broke
	exitUsage       = 2 // usage or script error
	exitInterrupted = 130
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// exitError carries an exit code with its error.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageErr(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

func newApp() *cli.App {
	return &cli.App{
		Name:    "clapper",
		Usage:   "turn a YAML run script into browser footage you can trust",
		Version: version,
		Commands: []*cli.Command{
			runCommand(), validateCommand(), schemaCommand(), inspectCommand(), renderCommand(), benchCommand(),
		},
		HideHelpCommand: true,
		ExitErrHandler:  func(*cli.Context, error) {}, // main maps errors to codes
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return &exitError{code: exitUsage, err: err}
		},
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	app := newApp()
	err := app.RunContext(ctx, hoistFlags(app, os.Args))
	code := exitCode(ctx, err)
	if err != nil && code != exitOK {
		var quiet *quietError
		if !errors.As(err, &quiet) {
			fmt.Fprintln(os.Stderr, "clapper:", err)
		}
	}
	os.Exit(code)
}

// quietError is an error already reported to the user in full.
type quietError struct{ err error }

func (e *quietError) Error() string { return e.err.Error() }
func (e *quietError) Unwrap() error { return e.err }

// exitCode maps an error to the process's exit code, in one place.
func exitCode(ctx context.Context, err error) int {
	if err == nil {
		return exitOK
	}
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		return exitInterrupted
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitFailed
}
