// Package compare tells what changed between two takes of one script, step
// by step: the picture each step left on screen (the changed share of its
// pixels, past a per-pixel tolerance, and the changed regions as boxes,
// leaving out the masked ones), the step's outcome and error, its
// duration, the documents it went to, and the console errors, uncaught
// page errors, failed requests and HTTP errors that are new in the second
// take. Steps are matched by their kind and what they act on, in script
// order, so a step added or removed is reported as such and the rest still
// pair up.
//
// It owns the comparison and its verdict, as pure functions over takes and
// pictures; it does not film (the replay does, then calls Compare) and does
// not draw the report (the viewer does). It reads only the timeline.
package compare
