// Package recorder owns screencast capture: it receives Chromium's frames,
// acks them, maps their times onto the take clock, accounts for every frame
// (delivered, or discarded as overflow, late, duplicate or rejected),
// records document boundaries at each main-frame commit, and spools frames
// to the take folder, as received, through a buffer bounded by frame count
// and bytes.
//
// The parts:
//   - Clock: the take clock (host CLOCK_MONOTONIC since the take began) and
//     the measured wall-to-monotonic offset, with its error bound, used when
//     Chromium sends only wall-clock times.
//   - Ledger: the accounting, pure. Delivered source times strictly
//     increase; a frame behind the last delivered one is late and never
//     re-timed; a run of more late frames than Chromium keeps in flight
//     ends the interval with a ClockError.
//   - Buffer: the bounded FIFO between capture and disk, pure.
//   - Capture: the CDP side, a core both modes share and a mode. The core
//     is one queue of events, a loop that maps, accounts and records
//     boundaries, and a spool goroutine that writes. A slow disk shows up
//     as overflow, a failing one ends the capture with its error, a crash,
//     a closed tab or a dead browser end it with theirs; what was written
//     stays readable. The live mode (live.go) is the screencast: a
//     listener that only enqueues, an acker goroutine (ack.go) that acks
//     each frame on arrival, in order, so acks never wait behind the
//     loop, a restarter that hands the screencast over (restart.go), and
//     Settle (settle.go). The studio mode is the frame pump (pump.go).
//
// It does not decide what a step means, drive input, or encode video.
package recorder
