package session

import (
	"errors"
	"testing"

	"github.com/clapper-dev/clapper/leases"
)

// A run's release closes the tab it opened while its lease is still in
// place, and gives the lease back only after: another run that looks at
// the tab during the close is refused, so it can never attach to a tab
// that is about to go.
func TestSharedReleaseClosesUnderTheLease(t *testing.T) {
	st, self, l := ownLease(t, "T1")
	closed := 0
	tabs := &sharedTabs{o: LeaseOptions{Store: st}, self: self, logf: t.Logf,
		held: map[string]heldTab{"main": {id: "T1", token: l.Token(), opened: true}},
		closePage: func(id string) error {
			closed++
			var ce *leases.ConflictError
			if err := st.Peek(id, "", leases.Caller{Pid: 424242, Start: 1}); !errors.As(err, &ce) {
				t.Errorf("during the close another run may take tab %s (%v)", id, err)
			}
			return nil
		}}
	tabs.release("main")
	if closed != 1 {
		t.Errorf("closed %d times, want once", closed)
	}
	if rows, _ := st.List(); len(rows) != 0 {
		t.Errorf("leases left %+v", rows)
	}
}

// ownLease opens a lease store in a temporary folder and claims tab for
// this process, returning the store, the caller and the lease held.
func ownLease(t *testing.T, tab string) (*leases.Store, leases.Caller, leases.Lease) {
	t.Helper()
	st, err := leases.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	self := leases.Self("")
	l, _, err := st.Claim(leases.Lease{Tab: tab, Browser: "B", Label: "me", Tier: leases.Automatic}, self)
	if err != nil {
		t.Fatal(err)
	}
	return st, self, l
}
