package main

import "testing"

// The quickstart filmed live passes the same checks as in studio mode.
func TestQuickstartLive(t *testing.T) {
	t.Parallel() // its own browser, output folder and take; a live run mostly waits out its pauses
	quickstartEndToEnd(t, "live")
}
