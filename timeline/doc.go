// Package timeline owns the take format: the record of one run on one clock.
//
// A take is a folder holding timeline.json (the versioned record: steps, input
// receipts, document boundaries, holds, frame accounting, cleanup receipt),
// frames.jsonl (one line per delivered frame, appended while capturing so a
// crash keeps what was captured) and frames/ (the JPEG bytes exactly as
// received). The package reads, writes and validates takes and defines the
// clock type every record is stamped with.
//
// It does not capture, drive a browser or encode video, and imports no other
// clapper package and no CDP library.
package timeline
