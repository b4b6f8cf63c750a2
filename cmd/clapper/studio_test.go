package main

import (
	"testing"

	"github.com/clapper-dev/clapper/internal/testenv"
)

// The quickstart filmed in studio mode passes the same checks as live.
func TestQuickstartStudio(t *testing.T) {
	testenv.Need(t, "chromium-headless-shell")
	quickstartEndToEnd(t, "studio")
}
