// Package session owns the browser side of a run: launching (or attaching
// to) Chromium and always cleaning it up with a receipt, tabs, real input
// dispatch (pointer paths, keys, wheel) with input receipts, waits and
// actionability checks, step execution with outcomes, and the static server
// for a script's sample site. It drives the recorder for the screencast and
// writes the take's timeline.
//
// It does not encode video: the compositor renders a finished take.
package session
