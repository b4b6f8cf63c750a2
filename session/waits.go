package session

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/scripts"
)

// pollEvery is how often a wait looks again.
const pollEvery = 50 * time.Millisecond

// check is one look of a wait. It returns whether the wait is over, what
// it saw (for the message when time runs out) and an error. With done, the
// error is the wait's final answer (nil for success, or a failure no
// waiting can mend, such as an ambiguous target); without, it is kept as
// the last error (the page may be between documents) and the wait goes on.
type check func(ctx context.Context) (done bool, seen string, err error)

// WaitTimeout is the error of a wait whose deadline passed first.
type WaitTimeout struct {
	// What was waited for, as a message: `wait for text "Hi"`.
	What string
	// Seen is what the last answered look saw ("" when none was).
	Seen string
	// Last is the error of the last look, when it failed (the message
	// then names it rather than Seen).
	Last error
	// Cause is why the step's context ended (its timeout, an interrupt).
	Cause error
}

func (e *WaitTimeout) Error() string {
	s := e.What + " before the timeout: "
	switch {
	case e.Last != nil:
		s += "last error: " + e.Last.Error()
	case e.Seen != "":
		s += e.Seen
	default:
		s += "no answer from the page"
	}
	return s + ": " + e.Cause.Error()
}

func (e *WaitTimeout) Unwrap() error { return e.Cause }

// poll is the package's one wait loop: it looks with c until c says done,
// or ctx ends (the step's deadline, the run's cancellation), sleeping
// every between looks on a timer that ctx's end interrupts. It returns
// c's final answer, or a *WaitTimeout.
func poll(ctx context.Context, what string, every time.Duration, c check) error {
	return pollWith(ctx, what, func(int) time.Duration { return every }, c)
}

// pollWith is poll with a wait of its own before each look after the
// first: waits(0) before the second, waits(1) before the third...
func pollWith(ctx context.Context, what string, waits func(i int) time.Duration, c check) error {
	var seen string
	var last error
	tick, release := after(ctx, 0)
	defer func() { release() }()
	looks := 0
	for {
		select {
		case <-ctx.Done():
			return &WaitTimeout{What: what, Seen: seen, Last: last, Cause: context.Cause(ctx)}
		case <-tick:
		}
		if err := clockStopped(ctx); err != nil {
			return &WaitTimeout{What: what, Seen: seen, Last: last, Cause: err}
		}
		done, s, err := c(ctx)
		if done {
			return err
		}
		if pageGone(ctx) {
			return fmt.Errorf("%s: %w", what, errPageGone) // nothing will change
		}
		if ctx.Err() == nil {
			// A look cut short by the deadline says nothing new.
			if err != nil {
				last = err
			} else {
				seen, last = s, nil
			}
		}
		release()
		tick, release = after(ctx, waits(looks))
		looks++
	}
}

// errPageGone ends a wait on a tab whose page closed.
var errPageGone = errors.New("the page closed")

// pageGone says whether the page of ctx's tab closed: its target
// detached (a frame's target that detaches is not the tab's).
func pageGone(ctx context.Context) bool {
	ch, err := chromedp.Detached(ctx)
	if err != nil {
		return false
	}
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// sleep waits d on ctx's clock (virtual time in studio mode), or until
// ctx ends; then it returns ctx's cause. A virtual clock that stopped (the
// browser is gone) ends the sleep with its cause: the time did not pass.
func sleep(ctx context.Context, d time.Duration) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if d <= 0 {
		return nil
	}
	t, release := after(ctx, d)
	defer release()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-t:
		return clockStopped(ctx)
	}
}

// helperCheck is a check that is done when a boolean page helper says true.
func helperCheck(t *Tab, name string, args ...any) check {
	return func(ctx context.Context) (bool, string, error) {
		ok, err := callHelper[bool](ctx, t.helpers, name, args...)
		return (ok && err == nil) || isException(err), "the page says not yet", err
	}
}

// wait runs a wait step.
func (r *run) wait(ctx context.Context, t *Tab, a scripts.Wait) error {
	switch {
	case a.Target != nil:
		target := *a.Target
		return poll(ctx, fmt.Sprintf("wait for %s to be %s", a.Target, a.State), pollEvery, func(ctx context.Context) (bool, string, error) {
			d, err := t.docOf(ctx, target)
			if err != nil {
				// An iframe not there yet holds nothing: detached and
				// hidden hold, the others wait.
				if !isFinal(err) && (a.State == "detached" || a.State == "hidden") {
					return true, "", nil
				}
				return isFinal(err), "", err
			}
			ok, err := docCall[bool](ctx, d, "state", specOf(target), nthArg(target), a.State)
			return (ok && err == nil) || isException(err), "the page says not yet", err
		})
	case a.Text != "":
		return poll(ctx, fmt.Sprintf("wait for text %q", a.Text), pollEvery, helperCheck(t, "hasText", a.Text))
	case a.URL != "":
		return poll(ctx, fmt.Sprintf("wait for URL %q", a.URL), pollEvery, helperCheck(t, "urlIs", a.URL))
	case a.JS != "":
		return poll(ctx, "wait for js", pollEvery, func(ctx context.Context) (bool, string, error) {
			ok, err := evalTruthy(ctx, a.JS)
			return ok && err == nil, "the expression is falsy", err
		})
	case a.NetworkIdle:
		return r.networkIdle(ctx, t)
	}
	return errors.New("wait: nothing to wait for")
}

// networkQuiet is how long no request may be in flight for the network to
// count as idle.
const networkQuiet = 500 * time.Millisecond

// networkIdle waits until the document has loaded and no request of the
// tab has been in flight for networkQuiet. Requests are counted from the
// tab's network events, so a request still under way is seen.
func (r *run) networkIdle(ctx context.Context, t *Tab) error {
	return poll(ctx, "wait for network idle", pollEvery, func(ctx context.Context) (bool, string, error) {
		q := t.events.network()
		if !q.idleFor(time.Now(), networkQuiet) {
			return false, strconv.Itoa(q.InFlight) + " requests in flight", nil
		}
		d, err := callHelper[docState](ctx, t.helpers, "doc")
		if err != nil {
			return false, "", err
		}
		return d.Ready == "complete", "document " + d.Ready, nil
	})
}

// netActivity counts a tab's requests in flight, by request id, and when
// the last one started or ended. Its methods are pure: times are given.
type netActivity struct {
	inflight map[string]struct{}
	last     time.Time
}

func newNetActivity() netActivity { return netActivity{inflight: map[string]struct{}{}} }

// start records a request sent (a redirect sends the same id again).
func (n *netActivity) start(id string, at time.Time) {
	n.inflight[id] = struct{}{}
	n.last = at
}

// finish records a request that finished or failed; an unknown id (one
// that started before the tab was watched) only counts as activity.
func (n *netActivity) finish(id string, at time.Time) {
	delete(n.inflight, id)
	n.last = at
}

func (n *netActivity) quiet() netQuiet { return netQuiet{InFlight: len(n.inflight), Last: n.last} }

// netQuiet is a reading of netActivity.
type netQuiet struct {
	InFlight int
	Last     time.Time // zero: no request seen
}

// idleFor reports whether nothing is in flight and nothing started or
// ended within quiet before now.
func (q netQuiet) idleFor(now time.Time, quiet time.Duration) bool {
	return q.InFlight == 0 && (q.Last.IsZero() || now.Sub(q.Last) >= quiet)
}

// evalTruthy evaluates a script author's expression in the page's own
// world, exactly as written (a trailing comment is fine), awaiting a
// promise, and reports whether its value is truthy. It evaluates the way
// the DevTools console does (REPL mode), so an expression that declares a
// const can be evaluated again on the next look.
func evalTruthy(ctx context.Context, expr string) (bool, error) {
	res, err := chromedp.Call(ctx, runtime.Evaluate, runtime.EvaluateParams{
		Expression: expr, AwaitPromise: ptr(true), Silent: ptr(true), ReplMode: ptr(true), ObjectGroup: waitGroup,
	})
	if err != nil {
		return false, err
	}
	if res.ExceptionDetails != nil || res.Result.ObjectID != "" {
		defer func() {
			_, _ = chromedp.Call(ctx, runtime.ReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: waitGroup})
		}()
	}
	if res.ExceptionDetails != nil {
		return false, &chromedp.ExceptionError{ExceptionDetails: res.ExceptionDetails}
	}
	v := res.Result
	if v.Subtype == runtime.RemoteObjectSubtypePromise && v.ObjectID != "" {
		// REPL mode awaits only an explicit await: a promise the
		// expression returns is awaited here.
		r, err := chromedp.Call(ctx, runtime.AwaitPromise, runtime.AwaitPromiseParams{PromiseObjectID: v.ObjectID})
		if err != nil {
			return false, err
		}
		if r.ExceptionDetails != nil {
			return false, &chromedp.ExceptionError{ExceptionDetails: r.ExceptionDetails}
		}
		v = r.Result
	}
	return truthy(v), nil
}

// waitGroup holds the remote objects a wait's expression made, released
// after each look.
const waitGroup = "clapper-wait"

// truthy is JavaScript's truthiness of a remote value. Pure.
func truthy(v *runtime.RemoteObject) bool {
	if v == nil {
		return false
	}
	switch v.Type {
	case runtime.RemoteObjectTypeUndefined:
		return false
	case runtime.RemoteObjectTypeObject:
		return v.Subtype != runtime.RemoteObjectSubtypeNull
	case runtime.RemoteObjectTypeBoolean:
		return string(v.Value) == "true"
	case runtime.RemoteObjectTypeString:
		return string(v.Value) != `""`
	case runtime.RemoteObjectTypeNumber:
		if v.UnserializableValue != "" {
			u := string(v.UnserializableValue)
			return u != "NaN" && u != "-0"
		}
		f, err := strconv.ParseFloat(string(v.Value), 64)
		return err == nil && f != 0 && !math.IsNaN(f)
	case runtime.RemoteObjectTypeBigint:
		return string(v.UnserializableValue) != "0n"
	}
	return true // functions, symbols
}
