package session

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// The page-side code is JavaScript in js/*.js, one concern a file, each
// adding functions to a clapper object. The files are installed together,
// once per document, in an isolated world of the tab's main frame (the
// page's scripts cannot see or change them, nor they the page's globals),
// and called by name with JSON arguments: no source text is ever built
// from data.
//
//go:embed js/*.js
var jsFiles embed.FS

// helperSource is the install script: js/clapper.js (which makes the
// clapper object) first, then the other files in name order.
var helperSource = func() string {
	names, err := fs.Glob(jsFiles, "js/*.js")
	if err != nil {
		panic(err) // the pattern is a constant
	}
	sort.Slice(names, func(i, j int) bool {
		if (names[i] == "js/clapper.js") != (names[j] == "js/clapper.js") {
			return names[i] == "js/clapper.js"
		}
		return names[i] < names[j]
	})
	var b strings.Builder
	for _, n := range names {
		src, err := jsFiles.ReadFile(n)
		if err != nil {
			panic(err) // embedded
		}
		b.WriteString("//# " + n + "\n")
		b.Write(src)
		b.WriteString("\n;\n")
	}
	return b.String()
}()

// worldName names clapper's isolated world in DevTools.
const worldName = "clapper"

// callHelperJS calls one helper by name. It is the only JavaScript the
// session sends with each call. The arguments come as one JSON text: CDP's
// call arguments cannot carry an empty string, array or null (they are
// dropped as empty), and a JSON text keeps each exactly.
const callHelperJS = `function(name, args) { return clapper[name](...JSON.parse(args)); }`

// helpers is one tab's access to the page helpers: the isolated world of
// its current document, made on first use and again for each new
// document. Safe for concurrent use.
type helpers struct {
	mu    sync.Mutex
	world runtime.ExecutionContextID // 0: none made for this document yet
}

// forget drops the world: the tab's main frame has a new document (called
// from the tab's listener), or a call on the world failed.
func (h *helpers) forget() {
	h.mu.Lock()
	h.world = 0
	h.mu.Unlock()
}

// ensure returns the world of the tab's current document, making it and
// installing the helpers when there is none. fresh is true when it was
// made by this call.
func (h *helpers) ensure(ctx context.Context) (world runtime.ExecutionContextID, fresh bool, err error) {
	h.mu.Lock()
	w := h.world
	h.mu.Unlock()
	if w != 0 {
		return w, false, nil
	}
	tree, err := chromedp.Call(ctx, page.GetFrameTree, cdp.Empty{})
	if err != nil {
		return 0, false, fmt.Errorf("read the frame tree: %w", err)
	}
	made, err := chromedp.Call(ctx, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: tree.FrameTree.Frame.ID, WorldName: worldName})
	if err != nil {
		return 0, false, fmt.Errorf("make clapper's world in the page: %w", err)
	}
	res, err := chromedp.Call(ctx, runtime.Evaluate, runtime.EvaluateParams{Expression: helperSource, ContextID: made.ExecutionContextID, Silent: ptr(true)})
	if err != nil {
		return 0, false, fmt.Errorf("install clapper's page helpers: %w", err)
	}
	if res.ExceptionDetails != nil {
		return 0, false, fmt.Errorf("install clapper's page helpers: %w", &chromedp.ExceptionError{ExceptionDetails: res.ExceptionDetails})
	}
	h.mu.Lock()
	h.world = made.ExecutionContextID
	h.mu.Unlock()
	return made.ExecutionContextID, true, nil
}

// callHelper calls clapper[name](args...) in the page of ctx's tab,
// awaiting a promise, and decodes the result into T (T may be
// *runtime.RemoteObject to keep an element). A call on a world made for an
// earlier document fails; it is then made anew and the call tried once
// more.
func callHelper[T any](ctx context.Context, h *helpers, name string, args ...any) (T, error) {
	if args == nil {
		args = []any{}
	}
	argsJSON, err := json.Marshal(args)
	if err != nil {
		var zero T
		return zero, fmt.Errorf("page helper %s: %w", name, err)
	}
	for {
		world, fresh, err := h.ensure(ctx)
		if err != nil {
			var zero T
			return zero, err
		}
		v, err := chromedp.Run(ctx, chromedp.CallFunctionOn[T](callHelperJS, func(p *runtime.CallFunctionOnParams) {
			p.ExecutionContextID = world
			p.AwaitPromise = ptr(true)
		}, name, string(argsJSON)))
		if err == nil || fresh || ctx.Err() != nil {
			if err != nil {
				err = fmt.Errorf("page helper %s: %w", name, err)
			}
			return v, err
		}
		h.forget()
	}
}

func ptr[T any](v T) *T { return &v }
