package session

import (
	"context"
	"fmt"

	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
)

// execMore runs the steps beyond the first subset.
func (r *run) execMore(ctx context.Context, tab *Tab, st scripts.Step, rec *timeline.Step) error {
	return undispatched(fmt.Errorf("step %q is not supported yet", st.Kind))
}
