// Package benchpage is the page `clapper bench capture` records, and the
// decoder that reads it back from a captured frame.
//
// On every animation frame the page paints a block code at a fixed place:
// its frame counter, the requestAnimationFrame time and performance.now()
// (both in microseconds on the page's clock), guarded by a sync byte and a
// CRC, as 4 rows of 32 black or white blocks of 16 CSS pixels, large enough
// to survive JPEG. It also moves a box and a bar so that every frame
// differs. Decode reads the code from a decoded frame; Draw paints the same
// code into an image, for tests. Analyze reads a take of the page and
// computes the capture's figures from the take alone (rates, coverage,
// order, gaps, timing error, latency); Summarize is the pure part of it.
//
// It does not drive a browser: launching, capturing and measuring CPU is
// package bench's (internal/bench).
package benchpage
