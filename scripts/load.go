package scripts

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"github.com/clapper-dev/clapper/internal/outrules"
	"github.com/clapper-dev/clapper/internal/size"
)

// LoadOptions are the inputs of Load besides the file.
type LoadOptions struct {
	// Env holds the -e KEY=VALUE overrides; they win over everything.
	Env map[string]string
	// LookupEnv reads the process environment (os.LookupEnv); nil reads
	// none.
	LookupEnv func(string) (string, bool)
	// Headed runs the browser with a window whatever the script says
	// (--headed).
	Headed bool
	// Dir, when set, is the folder the script's relative paths (serve:,
	// includes, files) start from instead of the script's own: a take's
	// copy of its script is replayed from where the script was.
	Dir string
}

// Load reads, decodes and validates the script at path, with its includes.
// It launches nothing. On failure the error is Errors: every problem found,
// each at file:line:col (file as given, so relative when path is), with
// secret values masked.
func Load(path string, opts LoadOptions) (*Script, error) {
	l := &loader{opts: opts, files: map[string][]string{}, secretNames: map[string]bool{}}
	s, err := l.load(path)
	if len(l.errs) == 0 && s != nil {
		// The render options are presentation, written into the take
		// (render.json) and named in errors: a secret in them is masked,
		// as in captions, and the video shows the mask. They were checked
		// by the table's rules, with their positions, as they were read;
		// here they are decoded, once.
		o := &s.Output
		v, derr := outrules.Decode(maskValues(o.given, s.Mask).(map[string]any))
		if ke := (*outrules.KeyError)(nil); errors.As(derr, &ke) {
			l.errs = append(l.errs, &Error{Pos: o.OptionPos[ke.Key], Msg: derr.Error()})
		}
		o.Options, o.given = v, nil
	}
	if len(l.errs) > 0 {
		return nil, l.finish()
	}
	return s, err
}

// maskValues returns v with mask applied to every string in it, through
// maps and lists; a nil map stays nil.
func maskValues(v any, mask func(string) string) any {
	switch x := v.(type) {
	case string:
		return mask(x)
	case map[string]any:
		if x == nil {
			return x
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = maskValues(e, mask)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = maskValues(e, mask)
		}
		return out
	}
	return v
}

// loader is the state of one Load.
type loader struct {
	opts        LoadOptions
	errs        []*Error
	files       map[string][]string // source lines by display path
	stack       []string            // absolute paths of the files being decoded
	shown       []string            // and as displayed
	serve       bool                // the main script has serve:
	secretNames map[string]bool
	secrets     []string        // secret values, longest first
	judged      map[string]bool // secret name and value pairs whose length was judged (judge)
	includes    int             // run steps expanded so far, against maxIncludes
}

func (l *loader) load(path string) (*Script, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		l.errs = append(l.errs, &Error{Pos: Pos{File: path}, Msg: "cannot read script: " + err.Error()})
		return nil, nil
	}
	src, err := readScript(path)
	if err != nil {
		l.errs = append(l.errs, &Error{Pos: Pos{File: path}, Msg: "cannot read script: " + reason(err)})
		return nil, nil
	}
	root := l.parse(path, src)
	if root == nil {
		return nil, nil
	}
	dir := filepath.Dir(abs)
	if l.opts.Dir != "" {
		if dir, err = filepath.Abs(l.opts.Dir); err != nil {
			l.errs = append(l.errs, &Error{Pos: Pos{File: path}, Msg: "cannot use the folder " + l.opts.Dir + ": " + err.Error()})
			return nil, nil
		}
	}
	d := &decoder{l: l, file: path, dir: dir, anchors: map[string]ast.Node{}, sc: &scope{}}
	d.collectAnchors(root)
	if d.tooLarge(root) {
		return nil, nil
	}
	l.stack, l.shown = []string{abs}, []string{path}

	s := &Script{File: abs}
	byName := d.header(root)
	_, l.serve = byName["serve"]
	d.secrets(byName["secrets"])
	var rest []entry
	for _, e := range d.entries(root) {
		if e.key != "env" && e.key != "secrets" && findField(scriptFields, e.key) != nil {
			rest = append(rest, e)
		}
	}
	v := d.fields(rest, scriptFields, "", func(entry) {}, nil)

	base := filepath.Base(path)
	slug := strings.TrimSuffix(base, filepath.Ext(base))
	s.Name = slug
	if x := v["name"]; x != nil {
		s.Name = x.v.(string)
	}
	if x := v["serve"]; x != nil {
		s.Serve = d.serveDir(x)
	}
	s.Browser = d.browser(v["browser"])
	if l.opts.Headed {
		s.Browser.Headless = false
	}
	s.Output = d.output(v["output"], slug)
	s.Defaults = defaults(v["defaults"])
	if x := v["mask"]; x != nil {
		s.Masks = x.v.([]Mask)
	}
	s.Dialogs = DialogsDismiss
	if x := v["dialogs"]; x != nil {
		s.Dialogs = x.v.(string)
	}

	var items []item
	if x := v["steps"]; x != nil {
		items = x.v.([]item)
	}
	if len(items) > maxSteps {
		d.errorf(v["steps"].at, "the script expands to %d steps, more than %d", len(items), maxSteps)
	}
	checkTabs(d, items)
	checkHandoffs(d, items, s.Browser)
	checkTimeouts(d, items, s.Defaults, func(text string) bool { return hasSecret(text, l.secrets) })

	// Secrets: flag what holds them, mask what is shown.
	s.Secrets = sortedKeys(l.secretNames)
	s.masker = newMasker(l.secrets)
	s.Steps = make([]Step, len(items))
	for i, it := range items {
		st := it.step
		st.Label = mask(st.Label, l.secrets)
		switch a := st.Action.(type) {
		case Type:
			a.Secret = hasSecret(a.Text, l.secrets)
			st.Action = a
		case Fill:
			a.Secret = hasSecret(a.Value, l.secrets)
			st.Action = a
		case Eval:
			a.Secret = hasSecret(a.JS, l.secrets)
			st.Action = a
		case Dialog:
			a.Secret = hasSecret(a.Text, l.secrets)
			st.Action = a
		case Caption:
			a.Text = mask(a.Text, l.secrets)
			st.Action = a
		case Chapter:
			a.Title, a.Description = mask(a.Title, l.secrets), mask(a.Description, l.secrets)
			st.Action = a
		}
		s.Steps[i] = st
	}
	s.Env = map[string]string{}
	for name := range d.sc.file {
		s.Env[name], _ = l.lookup(d.sc, name)
	}
	for name, val := range l.opts.Env {
		s.Env[name] = val
	}
	for name, val := range s.Env {
		s.Env[name] = mask(val, l.secrets)
	}
	return s, nil
}

// finish masks secrets in the errors, attaches source lines and sorts.
func (l *loader) finish() Errors {
	for _, e := range l.errs {
		if lines := l.files[e.Pos.File]; e.Pos.Line > 0 && e.Pos.Line <= len(lines) {
			e.Source = lines[e.Pos.Line-1]
		}
		e.Msg = mask(e.Msg, l.secrets)
		e.Source = mask(e.Source, l.secrets)
	}
	return sortErrors(l.errs)
}

var dupKeyRE = regexp.MustCompile(`^mapping key "(.*)" already defined at \[(\d+):\d+\]$`)

// parse parses one file into its top-level map, reporting YAML errors.
func (l *loader) parse(file string, src []byte) *ast.MappingNode {
	l.files[file] = strings.Split(strings.ReplaceAll(string(src), "\r\n", "\n"), "\n")
	if line, col := tooDeep(src, maxDepth); line > 0 {
		l.errs = append(l.errs, &Error{Pos: Pos{File: file, Line: line, Col: col},
			Msg: fmt.Sprintf("flow collections ([ ] and { }) nest more than %d deep here: write it in block style, one item a line", maxDepth)})
		return nil
	}
	f, err := parser.ParseBytes(src, 0)
	if err != nil {
		e := &Error{Pos: Pos{File: file}, Msg: "YAML: " + err.Error()}
		var ye yaml.Error
		if errors.As(err, &ye) {
			e.Msg = ye.GetMessage()
			if m := dupKeyRE.FindStringSubmatch(e.Msg); m != nil {
				e.Msg = fmt.Sprintf("duplicate key %q (first at line %s)", m[1], m[2])
			} else {
				e.Msg = "YAML syntax: " + e.Msg
			}
			if tk := ye.GetToken(); tk != nil && tk.Position != nil {
				e.Pos.Line, e.Pos.Col = tk.Position.Line, tk.Position.Column
			}
		}
		l.errs = append(l.errs, e)
		return nil
	}
	var docs []*ast.DocumentNode
	for _, doc := range f.Docs {
		if doc != nil && doc.Body != nil {
			docs = append(docs, doc)
		}
	}
	d := &decoder{l: l, file: file}
	if len(docs) == 0 {
		l.errs = append(l.errs, &Error{Pos: Pos{File: file}, Msg: "the file is empty: a script needs steps:"})
		return nil
	}
	if len(docs) > 1 {
		d.errorf(d.pos(docs[1].Body), "a script is one YAML document: remove the second one (after ---)")
	}
	d.anchors = map[string]ast.Node{}
	body := d.unwrap(docs[0].Body)
	m, ok := body.(*ast.MappingNode)
	if !ok {
		hint := ""
		if _, isSeq := body.(*ast.SequenceNode); isSeq {
			hint = ": put the steps under steps:"
		}
		d.errorf(d.pos(body), "a script must be a map with steps:, not %s%s", typeName(body), hint)
		return nil
	}
	return m
}

// header checks a file's top-level keys and indexes them. The env: of the
// file is decoded into the decoder's scope.
func (d *decoder) header(root *ast.MappingNode) map[string]entry {
	byName := map[string]entry{}
	for _, e := range d.entries(root) {
		if findField(scriptFields, e.key) == nil {
			d.unknownKey(e, fieldNames(scriptFields), "")
			continue
		}
		byName[e.key] = e
	}
	if e, ok := byName["env"]; ok {
		if x, _ := d.value(findField(scriptFields, "env"), e.value, "env"); x != nil {
			d.sc.file = x.(map[string]*envVar)
		}
	}
	return byName
}

// secrets reads a secrets: list: each name must have a non-empty value.
func (d *decoder) secrets(e entry) {
	if e.value == nil {
		return
	}
	x, _ := d.value(findField(scriptFields, "secrets"), e.value, "secrets")
	list, _ := x.(strList)
	for _, name := range list.s {
		d.l.secretNames[name] = true
	}
	for i, name := range list.s {
		v, ok := d.l.lookup(d.sc, name)
		if ok {
			d.l.judge(name, v)
		}
		switch {
		case !ok:
			d.errorf(list.at[i], "secret %s has no value: set it in the environment or pass -e %s=VALUE", name, name)
		case v == "":
			d.errorf(list.at[i], "secret %s is empty", name)
		case utf8.RuneCountInString(v) < MinSecret:
			d.errorf(list.at[i], "secret %s is %d characters long: masking a value shorter than %d would hide ordinary text too; use a longer value, or make it no secret", name, utf8.RuneCountInString(v), MinSecret)
		default:
			d.l.addSecret(v)
		}
	}
}

func (d *decoder) serveDir(x *val) string {
	dir := x.v.(string)
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(d.dir, dir)
	}
	fi, err := os.Stat(dir)
	switch {
	case err != nil:
		d.errorf(x.at, "serve: cannot use %q: %s", x.v, reason(err))
	case !fi.IsDir():
		d.errorf(x.at, "serve: %q is not a folder", x.v)
	}
	return dir
}

func sub(x *val) vals {
	if x == nil {
		return vals{}
	}
	return x.v.(vals)
}

func (d *decoder) browser(x *val) Browser {
	b := Browser{Width: 1280, Height: 720, Scale: 1, Headless: true}
	v := sub(x)
	vp := sub(v["viewport"])
	if y := vp["width"]; y != nil {
		b.Width = y.v.(int)
	}
	if y := vp["height"]; y != nil {
		b.Height = y.v.(int)
	}
	if y := vp["scale"]; y != nil {
		b.Scale = y.v.(float64)
	}
	if y := v["headless"]; y != nil {
		b.Headless = y.v.(bool)
	}
	if y := v["chromium"]; y != nil {
		b.Chromium = y.v.(string)
	}
	if y := v["args"]; y != nil {
		b.Args = y.v.(strList).s
	}
	if y := v["sandbox"]; y != nil {
		b.NoSandbox = !y.v.(bool)
	}
	if y := v["capture"]; y != nil {
		b.Capture = y.v.(string)
	}
	if y := v["attach"]; y != nil {
		b.Attach = y.v.(string)
		if z := v["capture"]; z != nil && b.Capture == CaptureStudio {
			d.errorf(z.key, "browser.capture: studio launches its own chromium-headless-shell and cannot attach to a running browser; remove browser.attach or use capture: live")
		}
		if msg := checkAttach(b.Attach); b.Attach != AttachShared && msg != "" {
			d.errorf(y.at, "browser.attach: %s", msg)
		}
		for _, k := range []string{"chromium", "args", "sandbox"} {
			if z := v[k]; z != nil {
				d.errorf(z.key, "browser.%s has no effect with browser.attach: clapper does not launch a browser it attaches to", k)
			}
		}
	}
	if y := v["claim"]; y != nil {
		b.Claim = y.v.(string)
		if msg := checkClaim(b.Claim); msg != "" {
			d.errorf(y.at, "browser.claim: %s", msg)
		}
	}
	if y := v["close"]; y != nil {
		c := y.v.(bool)
		b.Close = &c
	}
	return b
}

// checkAttach accepts only a ws:// endpoint on this machine, without
// credentials or query.
func checkAttach(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Sprintf("%q is not a URL; write ws://127.0.0.1:9222/devtools/browser/ID", s)
	}
	if u.Scheme != "ws" {
		return fmt.Sprintf("%q must be a ws:// endpoint, like ws://127.0.0.1:9222/devtools/browser/ID", s)
	}
	if u.User != nil {
		return fmt.Sprintf("%q must not carry credentials", s)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		return fmt.Sprintf("%q must not carry a query or fragment", s)
	}
	host := u.Hostname()
	if u.Port() == "" {
		return fmt.Sprintf("%q needs a port, like ws://127.0.0.1:9222/...", s)
	}
	if host == "localhost" {
		return ""
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return ""
	}
	return fmt.Sprintf("refusing %q: clapper only attaches to a browser on this machine (127.0.0.1, ::1 or localhost), never to %s", s, host)
}

func (d *decoder) output(x *val, slug string) Output {
	o := Output{Video: []string{slug + ".mp4"}}
	v := sub(x)
	if y := v["video"]; y != nil && len(y.v.(strList).s) > 0 {
		o.Video = y.v.(strList).s
	}
	if y := v["fps"]; y != nil {
		o.FPS = y.v.(int)
	}
	if y := v["preset"]; y != nil {
		o.Preset = y.v.(string)
	}
	if y := v["size"]; y != nil {
		// Its form is checked by the field's pattern; a side too large
		// for an int still fails here.
		w, h, err := size.Parse(y.v.(string))
		if err == nil {
			o.Width, o.Height = w, h
			err = outrules.CheckSize(w, h)
		}
		if err != nil {
			d.errorf(y.at, "output.%v", err)
		}
	}
	if y := v["*"]; y != nil {
		if m := y.v.(map[string]any); len(m) > 0 {
			o.given = m
		}
	}
	if y := v["*pos"]; y != nil && o.given != nil {
		o.OptionPos = y.v.(map[string]Pos)
	}
	return o
}

func defaults(x *val) Defaults {
	df := Defaults{Timeout: 10 * time.Second, TypeDelay: 60 * time.Millisecond, PointerSpeed: 1400, Beat: DefaultBeat}
	v := sub(x)
	if y := v["timeout"]; y != nil {
		df.Timeout = y.v.(time.Duration)
	}
	if y := v["beat"]; y != nil {
		df.Beat = y.v.(time.Duration)
	}
	if y := v["type_delay"]; y != nil {
		df.TypeDelay = y.v.(time.Duration)
	}
	if y := v["pointer_speed"]; y != nil {
		df.PointerSpeed = y.v.(float64)
	}
	return df
}

// checkTabs walks the expanded steps in order: a tab must be open where a
// step names it, and holds and resumes must pair up.
func checkTabs(d *decoder, items []item) {
	open := map[string]bool{FirstTab: true}
	closedAt := map[string]Pos{}
	held := map[string]bool{}
	bounded := map[string]bool{} // held with a max: a resume may find it resumed
	names := func() []string { return sortedKeys(open) }
	notOpen := func(at Pos, name string) {
		if p, ok := closedAt[name]; ok {
			d.errorf(at, "tab %q is not open here: it was closed at %s", name, p)
			return
		}
		d.errorf(at, "tab %q was never opened before this step: open it first with tab: {open: %s, url: ...}, or name the page the current tab opened with tab: {popup: %s}%s",
			name, name, name, didYouMean(name, names()))
	}
	// "stage" is the first tab's other name, unless the script opens a
	// tab of its own called so anywhere: then it is always that tab.
	ownStage := false
	for _, it := range items {
		if a, ok := it.step.Action.(Tab); ok && (a.Op == TabOpen || a.Op == TabPopup) && a.Name == StageTab {
			ownStage = true
		}
	}
	ref := func(name string) string {
		if name == StageTab && !ownStage {
			return FirstTab
		}
		return name
	}
	for i := range items {
		it := &items[i]
		st := &it.step
		if st.Tab != "" {
			st.Tab = ref(st.Tab)
		}
		switch a := st.Action.(type) {
		case Tab:
			if a.Op != TabOpen && a.Op != TabPopup {
				a.Name = ref(a.Name)
			}
			st.Action = a
		case Hold:
			a.Tab = ref(a.Tab)
			st.Action = a
		case Resume:
			a.Tab = ref(a.Tab)
			st.Action = a
		case Film:
			a.Tab = ref(a.Tab)
			st.Action = a
		}
		if st.Tab != "" && !open[st.Tab] {
			notOpen(it.tabAt, st.Tab)
		}
		switch a := st.Action.(type) {
		case Tab:
			switch a.Op {
			case TabOpen, TabPopup:
				if open[a.Name] && a.Name != FirstTab { // the first tab's name is refused already
					// A page that closed itself (a sign-in window) keeps
					// its name until the tab is closed.
					d.errorf(it.nameAt, "tab %q is already open: give this one another name, or close that tab first (tab: {close: %s})", a.Name, a.Name)
				}
				open[a.Name] = true
				delete(closedAt, a.Name)
			case TabSwitch:
				if !open[a.Name] {
					notOpen(it.nameAt, a.Name)
				}
			case TabClose:
				switch {
				case a.Name == FirstTab:
					d.errorf(it.nameAt, "tab: the first tab (main, also called stage) cannot be closed")
					continue
				case !open[a.Name]:
					notOpen(it.nameAt, a.Name)
				case held[a.Name]:
					d.errorf(it.nameAt, "tab %q is held: resume it before closing it", a.Name)
				}
				delete(open, a.Name)
				closedAt[a.Name] = st.Pos
			}
		case Hold:
			switch {
			case !open[a.Tab]:
				notOpen(it.nameAt, a.Tab)
			case held[a.Tab]:
				d.errorf(it.nameAt, "tab %q is already held", a.Tab)
			}
			// A bounded hold may have resumed itself before a later
			// hold: only the run can tell.
			held[a.Tab] = a.Max == 0
			bounded[a.Tab] = a.Max > 0
		case Film:
			if !open[a.Tab] {
				notOpen(it.nameAt, a.Tab)
			}
		case Resume:
			switch {
			case !open[a.Tab]:
				notOpen(it.nameAt, a.Tab)
			case !held[a.Tab] && !bounded[a.Tab]:
				d.errorf(it.nameAt, "tab %q is not held: resume needs an earlier hold: %s", a.Tab, a.Tab)
			}
			delete(held, a.Tab)
			delete(bounded, a.Tab)
		}
	}
}

// checkHandoffs refuses a handoff in a headless run: nobody could see the
// tab to work in it.
func checkHandoffs(d *decoder, items []item, b Browser) {
	if !b.Headless {
		return
	}
	for _, it := range items {
		if _, ok := it.step.Action.(Handoff); ok {
			d.errorf(it.step.Pos, "handoff needs a window a person can use, and this run is headless: set browser: {headless: false} or run with --headed")
		}
	}
}
