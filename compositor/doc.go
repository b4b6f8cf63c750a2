// Package compositor turns a take into video.
//
// It owns the constant-rate resampling of captured frames onto output ticks
// (a pure Schedule and Resampler), the overlays drawn from the timeline alone
// (the cursor and its click ripple, written as an ASS script that ffmpeg's
// libass renders), the ffmpeg argument list (a pure function, golden-tested)
// and the ffmpeg process that encodes it: Go pipes the captured JPEG bytes,
// repeated where a frame holds, into ffmpeg, which decodes, scales, draws the
// overlays and encodes.
//
// It reads only the timeline package. It never talks to a browser, never
// imports a CDP library and never modifies the take it renders.
package compositor
