// Package recorder owns screencast capture: it receives Chromium's frames,
// acks them from its own goroutine, maps their times onto the take clock,
// accounts for every frame (delivered, or discarded as overflow, late,
// duplicate or rejected), records document boundaries at each main-frame
// commit, and spools frames to the take folder through a buffer bounded by
// frame count and bytes.
//
// It does not decide what a step means, drive input, or encode video. The
// accounting (Ledger) and the buffer (Buffer) are pure and tested without a
// browser; Capture is the CDP side.
package recorder
