package session

import (
	"context"
	"fmt"

	"github.com/clapper-dev/clapper/scripts"
)

// Revalidation: holding or resuming a tab may run the page's own handlers
// and lets time pass, so nothing observed on the tab before (a target a
// pending step resolved) is used afterwards unchecked. The element itself
// is checked, by the reference clapper's world kept when the step found it
// (js/remember.js): still in the document, the same element, the same text
// and box. A replaced or changed element is refused; it is never searched
// for again, because the element found now might not be the one the step
// was about.

// epoch returns the tab's hold epoch.
func (r *run) epoch(t *Tab) int {
	r.holdMu.Lock()
	defer r.holdMu.Unlock()
	return t.epoch
}

// revalidation is clapper.revalidate's answer.
type revalidation struct {
	OK  bool   `json:"ok"`
	Why string `json:"why"`
}

// revalidate checks the element of act, observed in epoch, before it is
// used: at once when no hold began or ended on the tab since, else by its
// reference in the page. The tab must not be held now.
func (r *run) revalidate(ctx context.Context, tab *Tab, epoch int, act Actionable, t scripts.Target) error {
	if r.epoch(tab) == epoch {
		return nil
	}
	if err := r.refusal(tab, false); err != nil {
		return undispatched(fmt.Errorf("%s was observed before a hold of tab %q: %w", t, tab.Name, err))
	}
	d := act.doc
	if d == nil {
		d = tab.mainDoc()
	}
	v, err := docCall[revalidation](ctx, d, "revalidate", act.Token)
	switch {
	case err != nil:
		return undispatched(fmt.Errorf("%s was observed before a hold of tab %q and could not be checked again: %w", t, tab.Name, err))
	case !v.OK:
		return undispatched(fmt.Errorf("%s was observed before a hold of tab %q and %s: refused (it is not searched for again)", t, tab.Name, v.Why))
	}
	return nil
}
