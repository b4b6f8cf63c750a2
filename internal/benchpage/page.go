package benchpage

import (
	_ "embed"
	"net/http"
)

//go:embed page.html
var html []byte

// HTML returns the page.
func HTML() []byte { return html }

// Handler serves the page at every path, uncached.
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write(html)
	})
}
