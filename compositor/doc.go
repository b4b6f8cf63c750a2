// Package compositor turns a take into video.
//
// It owns the constant-rate resampling of captured frames onto output ticks
// (a pure Schedule and Resampler: tick k shows the latest frame at or before
// start + k/fps on the take clock, cut intervals removed), the overlays drawn
// from the timeline alone (the cursor smoothed from input receipts with its
// click ripple and shapes, keys, captions, the browser bar's address and the
// window's rounded corners, written as an ASS script that ffmpeg's libass
// renders), the camera (zoom steps and automatic zoom, as zoompan
// expressions), the window frame's static picture, chapters and caption
// sidecars, the render settings and presets, and the ffmpeg runs: Go pipes
// the captured JPEG bytes, repeated where a frame holds, into ffmpeg, which
// decodes, places, draws and encodes (MP4, WebM, GIF, PNG frames). The
// ffmpeg argument list is built by a pure function and golden-tested.
//
// It reads only the timeline package. It never talks to a browser, never
// imports a CDP library, never draws anything from the page, and never
// modifies the take it renders.
package compositor
