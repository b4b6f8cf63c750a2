// Package viewer writes a take's report: one self-contained HTML file that
// works from file:// with no server and no service worker. It holds a
// player synchronised with the step list and a filmstrip, lanes for
// chapters, documents, holds and page events, the pointer drawn over the
// frame, and the frame accounting and cleanup receipt.
//
// Nothing from a page runs in the report: the take's data travels as JSON
// in a script element of type application/json (with <, > and & escaped),
// the report's script renders it with textContent only, and its
// Content-Security-Policy admits only the report's own script and style
// (by hash) and images from data: and file: URLs, so a hostile title or
// address is shown as text.
//
// WriteDiffReport writes the report of a comparison of two takes
// (compare.Compare) the same way: one file, the findings first, then each
// step with findings beside its old picture, the changed regions boxed and
// the changed pixels drawn, and a slider that wipes from one picture to
// the other; the pages' text is escaped by html/template.
//
// It reads the timeline package, and the compare package for the diff
// report.
package viewer
