package main

import (
	"io"

	"github.com/clapper-dev/clapper/timeline"
)

// printableWriter escapes, visibly, the control characters of what is
// written to w (timeline.Printable): for output made of text from pages
// and takes, which must never drive the terminal. Each Write is escaped
// whole, so a caller writes whole strings (fmt's Fprint functions do).
type printableWriter struct{ w io.Writer }

func (p printableWriter) Write(b []byte) (int, error) {
	if _, err := io.WriteString(p.w, timeline.Printable(string(b))); err != nil {
		return 0, err
	}
	return len(b), nil
}
