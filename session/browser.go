package session

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"

	"github.com/clapper-dev/clapper/internal/ownerlock"
	"github.com/clapper-dev/clapper/timeline"
)

// Browser is a Chromium clapper drives: owned (launched by clapper, in its
// own process group, with a fresh profile) or attached (someone else's,
// never killed).
type Browser struct {
	// Swept are the profiles of runs that were gone, removed at launch.
	Swept   []string
	owned   bool
	cmd     *exec.Cmd
	profile string
	wsURL   string
	stderr  *tail
	exited  chan struct{}
	waitErr error

	allocCtx    context.Context
	allocCancel context.CancelFunc
	ctx         context.Context // browser-level chromedp context
	cancel      context.CancelFunc

	closeOnce sync.Once
	cleanup   timeline.Cleanup
	// mac is true when the browser runs on macOS (ControlOrMeta is Meta
	// there), read from its user agent when connected.
	mac bool
}

var devtoolsRE = regexp.MustCompile(`DevTools listening on (ws://\S+)`)

// Launch starts an owned Chromium. The browser outlives ctx's cancellation
// on purpose: Close must always run, and it cleans up. ctx bounds the start.
func Launch(ctx context.Context, o LaunchOptions) (*Browser, error) {
	euid := os.Geteuid
	if o.euid != nil {
		euid = o.euid
	}
	if err := checkSandbox(euid(), o); err != nil {
		return nil, err
	}
	path, err := FindChromium(o.Path)
	if err != nil {
		return nil, err
	}
	becomeSubreaper()
	swept := sweepProfiles(os.TempDir())
	profile, err := ownerlock.MkdirOwned(os.TempDir(), strings.TrimSuffix(profilePattern, "*"), ownerFile, "clapper's browser profile")
	if err != nil {
		return nil, fmt.Errorf("create browser profile: %w", err)
	}
	if err := os.Mkdir(filepath.Join(profile, "tmp"), 0o700); err != nil {
		os.RemoveAll(profile)
		return nil, fmt.Errorf("create browser profile: %w", err)
	}
	// The program itself, not a wrapper script that would outlive nothing
	// (wrapper.go): the parent-death signal must reach the browser.
	cmd := exec.Command(launchTarget(path), ChromiumArgs(o, profile)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	// Keep everything Chromium writes outside the profile flag (crash
	// database, caches) inside the profile too, so cleanup removes it and
	// its helpers can be found by the profile path.
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+profile+"/config", "XDG_CACHE_HOME="+profile+"/cache", "TMPDIR="+profile+"/tmp")
	cmd.Stdout = nil // /dev/null: a Go pipe here would make Wait wait for every helper
	// Stderr is a pipe of our own, not exec's: Wait would close exec's as
	// soon as the process exits, losing what it wrote last (the reason it
	// would not start).
	pipe, pw, err := os.Pipe()
	if err != nil {
		os.RemoveAll(profile)
		return nil, err
	}
	cmd.Stderr = pw
	err = cmd.Start()
	pw.Close()
	if err != nil {
		pipe.Close()
		os.RemoveAll(profile)
		return nil, fmt.Errorf("start chromium %s: %w", path, err)
	}
	b := &Browser{owned: true, cmd: cmd, profile: profile, stderr: newTail(8 << 10), exited: make(chan struct{}), Swept: swept}
	found := make(chan string, 1)
	stderrDone := make(chan struct{})
	go func() { // owned by b: ends when every Chromium process has closed its stderr
		defer close(stderrDone)
		defer pipe.Close()
		sc := bufio.NewScanner(pipe)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			b.stderr.Write([]byte(line + "\n"))
			if m := devtoolsRE.FindStringSubmatch(line); m != nil && !sent {
				found <- m[1]
				sent = true
			}
		}
		_, _ = io.Copy(io.Discard, pipe)
	}()
	go func() { // owned by b: reaps the process
		b.waitErr = cmd.Wait()
		close(b.exited)
	}()
	startCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	select {
	case b.wsURL = <-found:
	case <-b.exited:
		select { // what it wrote before exiting, read to the end (helpers may hold the pipe: bounded)
		case <-stderrDone:
		case <-time.After(2 * time.Second):
		}
		b.Close()
		return nil, fmt.Errorf("chromium exited at start (%v); its last output:\n%s", b.waitErr, b.stderr.String())
	case <-startCtx.Done():
		b.Close()
		return nil, fmt.Errorf("chromium did not open its debugging port within 30s: %w; its last output:\n%s", startCtx.Err(), b.stderr.String())
	}
	if err := b.connect(ctx); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// Attach connects to a running Chromium at a loopback ws:// endpoint,
// bounded by ctx.
func Attach(ctx context.Context, endpoint string) (*Browser, error) {
	if err := CheckEndpoint(endpoint); err != nil {
		return nil, err
	}
	b := &Browser{wsURL: endpoint, exited: make(chan struct{}), stderr: newTail(1)}
	if err := b.connect(ctx); err != nil {
		return nil, err
	}
	return b, nil
}

// CheckEndpoint accepts only ws:// addresses on a loopback host, with no
// credentials and no query.
func CheckEndpoint(endpoint string) error {
	u, err := url.Parse(endpoint)
	if err != nil {
		return fmt.Errorf("attach endpoint %q: %w", endpoint, err)
	}
	if u.Scheme != "ws" {
		return fmt.Errorf("attach endpoint %q: only ws:// is accepted", endpoint)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("attach endpoint %q: credentials, queries and fragments are refused", endpoint)
	}
	host := u.Hostname()
	ip := net.ParseIP(host)
	if host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("attach endpoint %q: only loopback hosts (127.0.0.1, ::1, localhost) are accepted", endpoint)
	}
	return nil
}

// connect connects to the browser's DevTools endpoint, bounded by ctx and
// by connectLimit.
func (b *Browser) connect(ctx context.Context) error {
	b.allocCtx, b.allocCancel = remote.NewAllocator(context.Background(), b.wsURL, remote.NoModifyURL)
	b.ctx, b.cancel = chromedp.NewContext(b.allocCtx, chromedp.WithBrowserOption(chromedp.WithBrowserErrorf(browserErrorf)))
	// The first call allocates the browser on the context it is given, so
	// it runs on b.ctx itself; a timer and ctx's end bound it instead of a
	// deadline.
	stop := context.AfterFunc(ctx, b.cancel)
	defer stop()
	err := bounded(connectLimit, b.cancel, func() error {
		v, err := chromedp.CallBrowser(b.ctx, browser.GetVersion, cdp.Empty{})
		if err == nil {
			b.mac = strings.Contains(v.UserAgent, "Macintosh")
		}
		return err
	})
	if err != nil {
		if ctx.Err() != nil {
			err = context.Cause(ctx)
		}
		return fmt.Errorf("connect to chromium at %s: %w", b.wsURL, err)
	}
	return nil
}

// browserErrorf receives chromedp's complaints about the connection.
// Messages for sessions it did not make are expected: Chromium attaches
// each page's out-of-process iframes by itself, and the session attaches
// to those it needs on its own (docs.go); the rest are printed as
// chromedp prints them.
func browserErrorf(format string, args ...any) {
	if strings.HasPrefix(format, "executor for %q doesn't exist") {
		return
	}
	log.Printf(format, args...)
}

// connectLimit bounds connecting to a browser, whatever the caller's
// deadline.
const connectLimit = 15 * time.Second

// bounded runs fn, calling abort if it takes longer than d.
func bounded(d time.Duration, abort func(), fn func() error) error {
	t := time.AfterFunc(d, abort)
	defer t.Stop()
	return fn()
}

// Exited is closed when an owned Chromium's process has exited.
func (b *Browser) Exited() <-chan struct{} { return b.exited }

// Pid returns the owned process's pid (0 when attached).
func (b *Browser) Pid() int {
	if b.cmd == nil || b.cmd.Process == nil {
		return 0
	}
	return b.cmd.Process.Pid
}

// Profile returns the temporary profile folder of an owned browser.
func (b *Browser) Profile() string { return b.profile }

// StderrTail returns the last lines Chromium printed.
func (b *Browser) StderrTail() string { return b.stderr.String() }

// NewTab opens a new tab and returns its chromedp context; cancel it to
// close the tab. Opening is bounded by ctx (a step's deadline, an
// interrupt) and by browserCallLimit, but the tab's context does not inherit
// ctx: the first command on a chromedp context allocates its target, so it
// runs on the tab's own context, which a timer cancels instead.
//
// In a browser clapper does not own, the tab gets a window of its own (as
// OpenPage's): a tab sharing a window is hidden as soon as anyone opens
// another one there, and a hidden page paints no frames and runs no
// animation frames.
func (b *Browser) NewTab(ctx context.Context) (context.Context, context.CancelFunc, error) {
	if b.owned {
		return b.tabContext(ctx, "open tab")
	}
	id, err := b.OpenPage(ctx)
	if err != nil {
		return nil, nil, err
	}
	return b.attachOpened(ctx, target.ID(id))
}

// attachOpened attaches to target id, which clapper just opened, as
// tabContext does; the returned cancel detaches and closes the target
// (bounded), and so does a failure to attach.
func (b *Browser) attachOpened(ctx context.Context, id target.ID) (context.Context, context.CancelFunc, error) {
	closeTarget := func() {
		c, cancel := context.WithTimeout(context.WithoutCancel(b.ctx), 2*time.Second)
		defer cancel()
		_, _ = chromedp.CallBrowser(c, target.CloseTarget, target.CloseTargetParams{TargetID: id})
	}
	tctx, cancel, err := b.tabContext(ctx, "open tab", chromedp.WithTargetID(id))
	if err != nil {
		closeTarget()
		return nil, nil, err
	}
	return tctx, func() { cancel(); closeTarget() }, nil
}

// tabContext makes a chromedp context for a tab of b (opts say which:
// none for a new one) and runs its first command, which allocates or
// attaches it, bounded by ctx and by browserCallLimit; what names the act in
// errors. On failure the context is cancelled.
func (b *Browser) tabContext(ctx context.Context, what string, opts ...chromedp.ContextOption) (context.Context, context.CancelFunc, error) {
	tctx, cancel := chromedp.NewContext(b.ctx, opts...)
	stop := context.AfterFunc(ctx, cancel)
	err := bounded(browserCallLimit, cancel, func() error {
		return chromedp.Do(tctx, chromedp.Func(func(context.Context, *chromedp.Target) error { return nil }))
	})
	if !stop() || err != nil {
		cancel()
		if err == nil || ctx.Err() != nil {
			err = context.Cause(ctx)
		}
		return nil, nil, fmt.Errorf("%s: %w", what, err)
	}
	return tctx, cancel, nil
}

// browserCallLimit bounds opening a tab, closing one and the other
// browser-level calls (onBrowser), whatever the caller's deadline. It is
// there for a browser that stopped answering, not to hurry a busy one: on
// two cores shared by several browsers, opening a tab has taken over 15 s.
const browserCallLimit = 30 * time.Second

// Close cleans up: closes the connection, and for an owned browser asks it
// to exit, kills its process group if it does not, waits for it, and only
// then removes its profile. It always returns a receipt, and is safe to
// call more than once.
func (b *Browser) Close() timeline.Cleanup {
	b.closeOnce.Do(func() { b.cleanup = b.close() })
	return b.cleanup
}

func (b *Browser) close() timeline.Cleanup {
	r := timeline.Cleanup{Connection: "none", Process: "not-owned", Profile: "not-owned"}
	if b.ctx != nil {
		r.Connection = "closed"
		select {
		case <-b.exited:
			r.Connection = "lost"
		default:
		}
		done := make(chan struct{})
		go func() { b.cancel(); b.allocCancel(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			r.Connection = "abandoned (close timed out)"
		}
	}
	if !b.owned {
		return r
	}
	pgid := b.cmd.Process.Pid
	// SIGTERM is Chromium's graceful shutdown.
	_ = b.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-b.exited:
		r.Process = "exited"
	case <-time.After(3 * time.Second):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-b.exited
		r.Process = "killed"
	}
	// Helpers that outlived the main process: its group, and any process
	// naming the profile.
	if n := killAndReap(pgid, b.profile, 3*time.Second); n > 0 && r.Process == "exited" {
		r.Process = "exited (" + strconv.Itoa(n) + " helpers killed)"
	}
	var err error
	for i := 0; i < 20; i++ {
		if err = os.RemoveAll(b.profile); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		r.Profile = "kept: " + err.Error()
	} else {
		r.Profile = "removed"
	}
	return r
}

// Kill kills an owned browser's process group at once (fault injection,
// and the last resort of interrupted runs).
func (b *Browser) Kill() error {
	if !b.owned {
		return errors.New("not an owned browser")
	}
	return syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
}

// tail keeps the last n bytes written to it.
type tail struct {
	mu  sync.Mutex
	n   int
	buf []byte
}

func newTail(n int) *tail { return &tail{n: n} }

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.n {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-t.n:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.buf))
}
