package host

import (
	"context"
	"errors"
	"strings"

	"github.com/clapper-dev/clapper/internal/exit"
	"github.com/clapper-dev/clapper/leases"
	"github.com/clapper-dev/clapper/session"
)

// Release gives back the lease on the tab sel names (a tab id, or a
// selector when a host runs): only a lease whose holder is gone or
// expired is given back. The tab is closed when clapper opened it, or as
// override says. The close is decided and made under the store's lock,
// with the lease still in place, so no other run can claim the tab in
// between. A refusal that names the holder is a failure (exit 1), a bad
// selector a usage error.
func Release(ctx context.Context, stateFlag, browserFlag, sel string, override *bool) (id string, g leases.GiveBack, err error) {
	if _, err := leases.ParseSelector(sel); err != nil {
		return "", g, exit.Usagef("%v", err)
	}
	st, b, err := OpenShared(ctx, stateFlag, browserFlag)
	if err != nil {
		return "", g, err
	}
	if b != nil {
		defer b.Close()
	}
	me := leases.Self("")
	if b != nil {
		page, err := session.ResolveTab(ctx, b, st, sel, me)
		var none *leases.NoTabError
		switch {
		case err == nil:
			id = page.ID
		case errors.As(err, &none) && looksLikeID(sel):
			id = strings.ToUpper(sel) // a lease whose tab is gone
		default:
			return "", g, refusal(err)
		}
	} else if looksLikeID(sel) {
		id = strings.ToUpper(sel)
	} else {
		return "", g, exit.Usagef("no browser host is running: name the tab by its id (clapper leases lists them)")
	}
	bid := ""
	if b != nil {
		bid = b.ID()
	}
	g, err = st.ReleaseClosing(id, me,
		func(leases.Lease) bool { return b != nil && leases.CloseOnRelease(true, st.Opened(id, bid), override) },
		func() error { return b.ClosePage(ctx, id) })
	if err != nil {
		return id, g, refusal(err)
	}
	return id, g, nil
}

func looksLikeID(s string) bool {
	sel, err := leases.ParseSelector(s)
	return err == nil && sel.Kind == "id"
}

// refusal makes a lease refusal a failure that names the holder, and a
// bad selector a usage error.
func refusal(err error) error {
	var ce *leases.ConflictError
	var un *leases.UnreadableError
	var none *leases.NoTabError
	switch {
	case errors.As(err, &ce), errors.As(err, &un), errors.As(err, &none):
		return &exit.Error{Code: exit.Failed, Err: err}
	case strings.HasPrefix(err.Error(), "tab selector"):
		return exit.Usagef("%v", err)
	}
	return err
}
