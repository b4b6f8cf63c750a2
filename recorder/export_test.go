package recorder

import (
	"context"

	"github.com/chromedp/cdproto/page"
)

// RestartInPlace makes o's capture restart its screencast by stopping and
// starting it on the tab's own session, the path taken when no second
// session can be attached.
func RestartInPlace(o *Options) { o.inPlace = true }

// FailScreencastStart makes a capture started with o fail at its
// screencast's start, after its seeded first frame, with err.
func FailScreencastStart(o *Options, err error) {
	o.startCast = func(context.Context, page.StartScreencastParams) error { return err }
}
