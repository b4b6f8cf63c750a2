package session

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/scripts"
)

func TestPollEndsOnDoneOrFinalError(t *testing.T) {
	n := 0
	err := poll(context.Background(), "count", time.Millisecond, func(context.Context) (bool, string, error) {
		n++
		return n == 3, "at " + string(rune('0'+n)), nil
	})
	if err != nil || n != 3 {
		t.Errorf("done on the third look: %v after %d", err, n)
	}
	final := errors.New("ambiguous")
	err = poll(context.Background(), "x", time.Millisecond, func(context.Context) (bool, string, error) { return true, "", final })
	if err != final {
		t.Errorf("final error: %v", err)
	}
}

func TestPollTimeoutSaysWhatItSaw(t *testing.T) {
	cause := errors.New("timeout 5s")
	for _, c := range []struct {
		name  string
		looks []func() (string, error)
		want  string
	}{
		{"no answer", nil, "wait for x before the timeout: no answer from the page: timeout 5s"},
		{"saw", []func() (string, error){func() (string, error) { return "3 matching", nil }}, "wait for x before the timeout: 3 matching: timeout 5s"},
		{"last error wins", []func() (string, error){
			func() (string, error) { return "3 matching", nil },
			func() (string, error) { return "", errors.New("context was destroyed") },
		}, "wait for x before the timeout: last error: context was destroyed: timeout 5s"},
		{"an answer after an error", []func() (string, error){
			func() (string, error) { return "", errors.New("gone") },
			func() (string, error) { return "2 matching", nil },
		}, "wait for x before the timeout: 2 matching: timeout 5s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			i := 0
			err := poll(ctx, "wait for x", time.Millisecond, func(context.Context) (bool, string, error) {
				if i == len(c.looks) {
					cancel(cause) // time is up: this look is cut short
					return false, "ignored", errors.New("context canceled")
				}
				s, err := c.looks[i]()
				i++
				return false, s, err
			})
			var wt *WaitTimeout
			if !errors.As(err, &wt) || !errors.Is(err, cause) || err.Error() != c.want {
				t.Errorf("got %v, want %q", err, c.want)
			}
		})
	}
}

func TestSleepEndsWithTheContext(t *testing.T) {
	if err := sleep(context.Background(), time.Millisecond); err != nil {
		t.Error(err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	cause := errors.New("interrupted")
	cancel(cause)
	if err := sleep(ctx, time.Hour); err != cause {
		t.Errorf("sleep on an ended context: %v", err)
	}
}

func TestNetActivity(t *testing.T) {
	t0 := time.Unix(1000, 0)
	q := 500 * time.Millisecond
	n := newNetActivity()
	if !n.quiet().idleFor(t0, q) {
		t.Error("no request ever: idle")
	}
	n.start("1", t0)
	n.start("2", t0.Add(100*time.Millisecond))
	n.start("1", t0.Add(150*time.Millisecond)) // a redirect: same id
	if got := n.quiet(); got.InFlight != 2 || got.idleFor(t0.Add(time.Hour), q) {
		t.Errorf("two in flight: %+v idle", got)
	}
	n.finish("1", t0.Add(200*time.Millisecond))
	n.finish("2", t0.Add(300*time.Millisecond))
	if got := n.quiet(); got.InFlight != 0 || got.idleFor(t0.Add(700*time.Millisecond), q) || !got.idleFor(t0.Add(800*time.Millisecond), q) {
		t.Errorf("quiet 500 ms after the last finished at 300 ms: %+v", got)
	}
	n.finish("unknown", t0.Add(900*time.Millisecond)) // started before the tab was watched
	if got := n.quiet(); got.InFlight != 0 || got.idleFor(t0.Add(1000*time.Millisecond), q) {
		t.Errorf("an unknown request's end counts as activity: %+v", got)
	}
}

func TestTruthy(t *testing.T) {
	obj := func(typ runtime.RemoteObjectType, v string) *runtime.RemoteObject {
		return &runtime.RemoteObject{Type: typ, Value: []byte(v)}
	}
	for _, c := range []struct {
		v    *runtime.RemoteObject
		want bool
	}{
		{nil, false},
		{&runtime.RemoteObject{Type: runtime.RemoteObjectTypeUndefined}, false},
		{&runtime.RemoteObject{Type: runtime.RemoteObjectTypeObject, Subtype: runtime.RemoteObjectSubtypeNull}, false},
		{&runtime.RemoteObject{Type: runtime.RemoteObjectTypeObject, ObjectID: "1"}, true},
		{obj(runtime.RemoteObjectTypeBoolean, "true"), true},
		{obj(runtime.RemoteObjectTypeBoolean, "false"), false},
		{obj(runtime.RemoteObjectTypeString, `""`), false},
		{obj(runtime.RemoteObjectTypeString, `"0"`), true},
		{obj(runtime.RemoteObjectTypeNumber, "0"), false},
		{obj(runtime.RemoteObjectTypeNumber, "0.5"), true},
		{&runtime.RemoteObject{Type: runtime.RemoteObjectTypeNumber, UnserializableValue: "NaN"}, false},
		{&runtime.RemoteObject{Type: runtime.RemoteObjectTypeNumber, UnserializableValue: "-0"}, false},
		{&runtime.RemoteObject{Type: runtime.RemoteObjectTypeNumber, UnserializableValue: "Infinity"}, true},
		{&runtime.RemoteObject{Type: runtime.RemoteObjectTypeBigint, UnserializableValue: "0n"}, false},
		{&runtime.RemoteObject{Type: runtime.RemoteObjectTypeBigint, UnserializableValue: "7n"}, true},
		{&runtime.RemoteObject{Type: runtime.RemoteObjectTypeFunction}, true},
	} {
		if got := truthy(c.v); got != c.want {
			t.Errorf("truthy(%+v) = %v", c.v, got)
		}
	}
}

// evalTruthy agrees with the page's own truthiness for values of every
// type, including ones that cannot be returned by value.
func TestEvalTruthyInThePage(t *testing.T) {
	tab, _, _ := fixtureTab(t, "fixture.html")
	for expr, want := range map[string]bool{
		"0": false, "''": false, "null": false, "undefined": false, "NaN": false, "-0": false, "0n": false,
		"1": true, "'x'": true, "[]": true, "document.body": true, "() => 1": true, "Symbol()": true,
		"Promise.resolve(0)": false, "Promise.resolve(document)": true,
		"document.title === 'Fixture' // a trailing comment": true,
	} {
		c, cancel := context.WithTimeout(tab, 30*time.Second)
		got, err := evalTruthy(c, expr)
		cancel()
		if err != nil || got != want {
			t.Errorf("evalTruthy(%s) = %v, %v; want %v", expr, got, err, want)
		}
		js, err := chromedp.Run(tab, chromedp.Evaluate[bool]("!!("+strings.TrimSuffix(expr, " // a trailing comment")+")"))
		if err == nil && !strings.HasPrefix(expr, "Promise") && js != want {
			t.Errorf("the table is wrong for %s: the page says %v", expr, js)
		}
	}
}

func TestScrollBy(t *testing.T) {
	st := scrollState{X: 0, Y: 100, MaxX: 0, MaxY: 1000, DX: 0, DY: 350}
	for _, c := range []struct {
		name   string
		a      scripts.Scroll
		dx, dy float64
	}{
		{"by", scripts.Scroll{By: &scripts.Point{Y: 200}}, 0, 200},
		{"by, clamped at the bottom", scripts.Scroll{By: &scripts.Point{Y: 5000}}, 0, 900},
		{"by, clamped at the top", scripts.Scroll{By: &scripts.Point{Y: -5000}}, 0, -100},
		{"no room sideways", scripts.Scroll{By: &scripts.Point{X: 50}}, 0, 0},
		{"to a target", scripts.Scroll{ToTarget: &scripts.Target{CSS: "#x"}}, 0, 350},
		{"to a point", scripts.Scroll{ToPoint: &scripts.Point{Y: 400}}, 0, 300},
		{"to the top", scripts.Scroll{ToEdge: "top"}, 0, -100},
		{"to the bottom", scripts.Scroll{ToEdge: "bottom"}, 0, 900},
	} {
		if dx, dy := scrollBy(c.a, st); dx != c.dx || dy != c.dy {
			t.Errorf("%s: (%v, %v), want (%v, %v)", c.name, dx, dy, c.dx, c.dy)
		}
	}
}
