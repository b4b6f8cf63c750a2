package leases

import (
	"fmt"
	"strings"
)

// ConflictError refuses a tab another holder has: it names the tab, its
// address and the holder. Nothing was sent to the tab.
type ConflictError struct {
	Tab    string
	URL    string
	Holder string // the holder's label
	Pid    int
}

func (e *ConflictError) Error() string {
	url := e.URL
	if url == "" {
		url = "address unknown"
	}
	holder := e.Holder
	if pid := fmt.Sprintf("pid %d", e.Pid); e.Pid > 0 && !strings.Contains(holder, pid) {
		holder += " (" + pid + ")"
	}
	return fmt.Sprintf("tab %s (%s) is leased by %s: wait for it to finish, or use another tab; clapper leases shows who holds what", e.Tab, url, holder)
}

// UnreadableError refuses a tab whose lease file cannot be read: it is
// never taken as free.
type UnreadableError struct {
	Tab    string
	Path   string
	Reason string // the errno (EACCES, …) or "unparseable"
}

func (e *UnreadableError) Error() string {
	return fmt.Sprintf("tab %s: its lease %s cannot be read (%s); it is not taken as free: fix or remove the file once no run uses the tab", e.Tab, e.Path, e.Reason)
}

// LostError says a lease this caller held is no longer its own: it was
// reclaimed (expired, then taken) or released.
type LostError struct {
	Tab string
	Now *Lease // the lease there now, nil when none
}

func (e *LostError) Error() string {
	if e.Now != nil {
		return fmt.Sprintf("lease on tab %s was lost: it is now held by %s (pid %d)", e.Tab, e.Now.Label, e.Now.Pid)
	}
	return fmt.Sprintf("lease on tab %s was lost: it was released", e.Tab)
}
