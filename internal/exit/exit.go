// Package exit carries a command's exit code with its error, so that the
// packages that run clapper's work (film, host) say how it ended and the
// command maps it to the process's exit code in one place.
package exit

import "fmt"

// Exit codes. A run ended by a signal exits as shells report a process
// killed by it, 128 + the signal's number; the command decides that.
const (
	OK     = 0
	Failed = 1 // a step or expectation failed, or the run broke
	Usage  = 2 // usage or script error: fix the command or the script
)

// Error carries an exit code with its error.
type Error struct {
	Code int
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Usagef is a usage error (exit 2) made as fmt.Errorf makes errors.
func Usagef(format string, args ...any) error {
	return &Error{Code: Usage, Err: fmt.Errorf(format, args...)}
}

// Quiet is an error already reported to the user in full: the command
// does not print it again.
type Quiet struct{ Err error }

func (e *Quiet) Error() string { return e.Err.Error() }
func (e *Quiet) Unwrap() error { return e.Err }
