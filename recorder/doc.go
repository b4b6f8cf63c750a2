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
//   - Capture: the CDP side. A listener only enqueues; an acker goroutine
//     acks each frame on arrival, in order, so acks never wait behind the
//     capture loop; the loop maps, accounts and records boundaries; a
//     spool goroutine writes. A slow disk shows up as overflow, a failing
//     one ends the capture with its error, a crash, a closed tab or a dead
//     browser end it with theirs; what was written stays readable.
//
// It does not decide what a step means, drive input, or encode video.
package recorder
