package main

import "testing"

// The quickstart filmed live passes the same checks as in studio mode.
func TestQuickstartLive(t *testing.T) {
	quickstartEndToEnd(t, "live")
}
