package film

import (
	"fmt"

	"github.com/clapper-dev/clapper/session"
)

// handoff tells the person at the browser's window what a handoff step
// asks of them. It is printed even with --quiet: the run waits for them.
// Called from the run's goroutine; it only writes.
func (u *UI) Handoff(h session.HandoffRequest) {
	u.mu.Lock()
	defer u.mu.Unlock()
	msg := h.Message
	if msg == "" {
		msg = "the script hands the browser over to you"
	}
	fmt.Fprintf(u.log, "\n>>> clapper: your turn, in the browser's tab %q: %s\n>>> the run goes on by itself once %s (it fails after %v)\n\n",
		h.Tab, msg, h.Until, h.Timeout)
}
