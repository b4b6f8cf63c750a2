package session

import (
	"context"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/scripts"
)

// The page-side code is JavaScript in js/. The files of js/ itself are
// the helpers: one concern a file, each adding functions to a clapper
// object, installed together once per document in an isolated world of
// the tab's main frame (the page's scripts cannot see or change them, nor
// they the page's globals) and called by name. The files of js/main/ are
// functions called on one element in the page's own world, where a page's
// custom elements define their properties (value, checked). Arguments
// always travel as JSON: no source text is ever built from data.
//
//go:embed js/*.js js/main/*.js
var jsFiles embed.FS

// helperSource is the install script: js/clapper.js (which makes the
// clapper object) first, then the other files of js/ in name order.
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
		b.WriteString("//# " + n + "\n")
		b.Write(mustRead(n))
		b.WriteString("\n;\n")
	}
	return b.String()
}()

// mainFunctions are js/main/NAME.js by NAME: function declarations that
// take their arguments as one JSON text and run with this = the element.
var mainFunctions = func() map[string]string {
	names, err := fs.Glob(jsFiles, "js/main/*.js")
	if err != nil {
		panic(err)
	}
	m := map[string]string{}
	for _, n := range names {
		m[strings.TrimSuffix(path.Base(n), ".js")] = strings.TrimSpace(string(mustRead(n)))
	}
	return m
}()

func mustRead(name string) []byte {
	b, err := jsFiles.ReadFile(name)
	if err != nil {
		panic(err) // embedded at build time
	}
	return b
}

// worldName begins the name of clapper's isolated worlds in DevTools. Each
// CDP session names its worlds anew (newWorldIndex): Chromium hands a
// session that asks for a world by a name an earlier session made in the
// same document the earlier world, whose context it never announces to the
// new session, so a tab claimed again after a run released it could not
// be driven.
const worldName = "clapper"

// callHelperJS calls one helper by name. It is the only JavaScript the
// session sends with each call. The arguments come as one JSON text: CDP's
// call arguments cannot carry an empty string, array or null (they are
// dropped as empty), and a JSON text keeps each exactly.
const callHelperJS = `function(name, args) { return clapper[name](...JSON.parse(args)); }`

// worldIndex records clapper's worlds in one CDP session (a tab's, or an
// out-of-process frame's), from the session's listener, for the helpers
// of every document in it. Safe for concurrent use.
type worldIndex struct {
	name   string // the name of the session's worlds
	mu     sync.Mutex
	unique map[int64]string // clapper's worlds by context id
	docs   []*helpers       // the helpers of the session's documents
}

// newWorldIndex returns the record of a new CDP session's worlds, with a
// name of their own.
func newWorldIndex() *worldIndex {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return &worldIndex{name: worldName + "-" + hex.EncodeToString(b[:])}
}

// add returns new helpers for frame id in the session.
func (w *worldIndex) add(id cdp.FrameID) *helpers {
	h := &helpers{frame: id, index: w}
	w.mu.Lock()
	w.docs = append(w.docs, h)
	w.mu.Unlock()
	return h
}

// remove forgets the helpers of frame id (its iframe went away).
func (w *worldIndex) remove(id cdp.FrameID) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, h := range w.docs {
		if h.frame == id && id != "" {
			w.docs = append(w.docs[:i], w.docs[i+1:]...)
			return
		}
	}
}

func (w *worldIndex) all() []*helpers {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]*helpers(nil), w.docs...)
}

// contextCreated, contextDestroyed, contextsCleared and navigated are
// called by the session's listener, on its read loop; they only record.
func (w *worldIndex) contextCreated(c *runtime.ExecutionContextDescription) {
	if c == nil || c.Name != w.name {
		return
	}
	w.mu.Lock()
	if w.unique == nil {
		w.unique = map[int64]string{}
	}
	w.unique[int64(c.ID)] = c.UniqueID
	w.mu.Unlock()
}

func (w *worldIndex) contextDestroyed(uniqueID string) {
	w.mu.Lock()
	for id, u := range w.unique {
		if u == uniqueID {
			delete(w.unique, id)
		}
	}
	w.mu.Unlock()
	for _, h := range w.all() {
		h.drop(uniqueID)
	}
}

func (w *worldIndex) contextsCleared() {
	w.mu.Lock()
	clear(w.unique)
	w.mu.Unlock()
	for _, h := range w.all() {
		h.forget()
	}
}

// navigated drops the world of the document a frame replaced: main is
// true for the session's main frame.
func (w *worldIndex) navigated(id cdp.FrameID, main bool) {
	for _, h := range w.all() {
		if (main && h.frame == "") || (h.frame != "" && h.frame == id) {
			h.forget()
		}
	}
}

func (w *worldIndex) lookup(contextID runtime.ExecutionContextID) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.unique[int64(contextID)]
}

// helpers is one document's access to the page helpers: the isolated
// world of the document now in its frame (the session's main frame, or
// the iframe frame names), made on first use and again for each new
// document. Worlds are named by their system-unique context id, so a call
// can never land in another document's context. Safe for concurrent use.
type helpers struct {
	mu    sync.Mutex
	world string // unique context id of the current world, "" for none
	gen   int    // counts forgets, so a world made meanwhile is not kept
	// frame is the iframe whose document this is ("": the main frame of
	// the session); index the session's record of worlds.
	frame cdp.FrameID
	index *worldIndex
}

// drop forgets the world if it is uniqueID (its context was destroyed).
func (h *helpers) drop(uniqueID string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.world == uniqueID {
		h.world = ""
		h.gen++
	}
}

// forget drops the world: the frame has a new document, or a call on the
// world failed.
func (h *helpers) forget() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.world = ""
	h.gen++
}

// ensure returns the world of the document now in the frame, making it
// and installing the helpers when there is none. fresh is true when it
// was made by this call.
func (h *helpers) ensure(ctx context.Context) (world string, fresh bool, err error) {
	h.mu.Lock()
	w, gen := h.world, h.gen
	h.mu.Unlock()
	if w != "" {
		return w, false, nil
	}
	frame := h.frame
	if frame == "" {
		tree, err := chromedp.Call(ctx, page.GetFrameTree, cdp.Empty{})
		if err != nil {
			return "", false, fmt.Errorf("read the frame tree: %w", err)
		}
		frame = tree.FrameTree.Frame.ID
	}
	made, err := chromedp.Call(ctx, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: frame, WorldName: h.index.name})
	if err != nil {
		return "", false, fmt.Errorf("make clapper's world in the page: %w", err)
	}
	// The context's creation event comes before the command's reply, and
	// the listener has recorded it.
	w = h.index.lookup(made.ExecutionContextID)
	if w == "" {
		return "", false, errors.New("make clapper's world in the page: its context was not announced (is the page closing?)")
	}
	res, err := chromedp.Call(ctx, runtime.Evaluate, runtime.EvaluateParams{Expression: helperSource, UniqueContextID: w, Silent: ptr(true)})
	if err != nil {
		return "", false, fmt.Errorf("install clapper's page helpers: %w", err)
	}
	if res.ExceptionDetails != nil {
		return "", false, fmt.Errorf("install clapper's page helpers: %w", &chromedp.ExceptionError{ExceptionDetails: res.ExceptionDetails})
	}
	h.mu.Lock()
	if h.gen == gen { // the document did not change meanwhile
		h.world = w
	}
	h.mu.Unlock()
	return w, true, nil
}

// callHelper calls clapper[name](args...) in the page of ctx's tab,
// awaiting a promise, and decodes the result into T (T may be
// *runtime.RemoteObject to keep an element). A protocol error on a world
// made earlier (its document is gone) makes the world anew and tries once
// more; an exception thrown by a helper is returned as it is.
// awaitsFrames names the helpers that answer only after the page's next
// animation frames, with how many they need (0: as many as it takes),
// for the pump's pacing (busyFrames): probe awaits two animation frames,
// nextFrame one, scrollSettled as many as the scroll moves for.
var awaitsFrames = map[string]int{"probe": 2, "scrollSettled": 0, "nextFrame": 1, "turn": 1}

func callHelper[T any](ctx context.Context, h *helpers, name string, args ...any) (T, error) {
	var zero T
	if args == nil {
		args = []any{}
	}
	argsJSON, err := json.Marshal(args)
	if err != nil {
		return zero, fmt.Errorf("page helper %s: %w", name, err)
	}
	for {
		world, fresh, err := h.ensure(ctx)
		if err != nil {
			return zero, err
		}
		done := busy
		if need, ok := awaitsFrames[name]; ok {
			done = func(ctx context.Context) func() { return busyFrames(ctx, need) }
		}
		release := done(ctx)
		v, err := chromedp.Run(ctx, chromedp.CallFunctionOn[T](callHelperJS, func(p *runtime.CallFunctionOnParams) {
			p.UniqueContextID = world
			p.AwaitPromise = ptr(true)
		}, name, string(argsJSON)))
		release()
		var pe *cdproto.Error
		if err == nil || fresh || ctx.Err() != nil || !errors.As(err, &pe) {
			if err != nil {
				if bad := badSelector(err); bad != nil {
					return v, bad
				}
				err = fmt.Errorf("page helper %s: %w", name, err)
			}
			return v, err
		}
		h.forget()
	}
}

// isException reports whether err is a JavaScript exception: from one of
// clapper's helpers that is a final answer (an invalid selector), never
// something waiting mends.
func isException(err error) bool {
	var ex *chromedp.ExceptionError
	return errors.As(err, &ex)
}

// selectorRefused is the browser's refusal of a CSS selector or an XPath
// expression, said plainly: what was refused, without the helper's
// stack. It is still the exception underneath (isException).
type selectorRefused struct {
	said, sel string
	why       string // what is most likely wrong (scripts.RefusedSelector), "" when nothing
	ex        *chromedp.ExceptionError
}

func (e *selectorRefused) Error() string {
	said := e.said
	if e.why != "" {
		said += ": it " + e.why
	}
	return said + " (the browser refused it; fix it in the script)"
}
func (e *selectorRefused) Unwrap() error { return e.ex }

// badSelector is err as a selectorRefused when it is the browser's
// SyntaxError for an invalid selector or XPath expression, else nil.
func badSelector(err error) error {
	var ex *chromedp.ExceptionError
	if !errors.As(err, &ex) || ex.Exception == nil {
		return nil
	}
	if m := invalidSelector.FindStringSubmatch(ex.Exception.Description); m != nil {
		return &selectorRefused{said: "the selector " + strconv.Quote(m[1]) + " is not valid CSS", sel: m[1],
			why: scripts.RefusedSelector(m[1]), ex: ex}
	}
	if m := invalidXPath.FindStringSubmatch(ex.Exception.Description); m != nil {
		return &selectorRefused{said: "the XPath " + strconv.Quote(m[1]) + " is not a valid XPath expression", sel: m[1], ex: ex}
	}
	return nil
}

var (
	invalidSelector = regexp.MustCompile(`(?s)^SyntaxError: [^\n]*?: '(.*)' is not a valid selector\.`)
	invalidXPath    = regexp.MustCompile(`(?s)^SyntaxError: [^\n]*?: The string '(.*)' is not a valid XPath expression\.`)
)

// errGone is returned when a target matched when checked but not when
// acted on.
var errGone = errors.New("element gone")

// callOnElement calls js/main/NAME.js on the target element (the control
// of a label, clapper.control) in its document's
// own world, with args as its JSON text, and decodes its result into T.
func callOnElement[T any](ctx context.Context, d *doc, t scripts.Target, name string, args ...any) (T, error) {
	ctx, stop := d.on(ctx)
	defer stop()
	h := d.helpers
	var zero T
	fn, ok := mainFunctions[name]
	if !ok {
		return zero, fmt.Errorf("no page function %s", name)
	}
	if args == nil {
		args = []any{}
	}
	argsJSON, err := json.Marshal(args)
	if err != nil {
		return zero, err
	}
	obj, err := callHelper[*runtime.RemoteObject](ctx, h, "control", specOf(t), nthArg(t))
	if err != nil {
		return zero, err
	}
	if obj == nil || obj.ObjectID == "" {
		return zero, fmt.Errorf("%s: %w", t, errGone)
	}
	defer release(ctx, obj.ObjectID)
	node, err := chromedp.Call(ctx, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: obj.ObjectID})
	if err != nil {
		return zero, fmt.Errorf("%s: %w", t, err)
	}
	mainObj, err := chromedp.Call(ctx, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: node.Node.BackendNodeID})
	if err != nil {
		return zero, fmt.Errorf("%s: %w", t, err)
	}
	defer release(ctx, mainObj.Object.ObjectID)
	v, err := chromedp.Run(ctx, chromedp.CallFunctionOn[T](fn, func(p *runtime.CallFunctionOnParams) {
		p.ObjectID = mainObj.Object.ObjectID
		p.AwaitPromise = ptr(true)
	}, string(argsJSON)))
	if err != nil {
		return zero, fmt.Errorf("%s in the page: %w", name, err)
	}
	return v, nil
}

// release lets the page forget a remote object, even when ctx has ended.
func release(ctx context.Context, id runtime.RemoteObjectID) {
	if id == "" {
		return
	}
	c, cancel := afterwards(ctx)
	defer cancel()
	_, _ = chromedp.Call(c, runtime.ReleaseObject, runtime.ReleaseObjectParams{ObjectID: id})
}

func ptr[T any](v T) *T { return &v }
