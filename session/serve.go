package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Server serves a script's sample site for the length of a run, on a
// loopback port, to the run's browser only as far as a local process can
// tell: it answers only under a host name holding a random token
// (http://TOKEN.localhost:PORT, which Chromium resolves to loopback
// itself), so another process that finds the port cannot guess a URL it
// answers. It also answers under a second token host, CrossSite's, a
// different site, so that a sample page can embed a cross-site iframe.
// It serves only the folder's own plain files: no dotfile, nothing a
// link leads out of the folder to, and never /, the home folder or an
// ancestor of it.
type Server struct {
	URL  string
	srv  *http.Server
	done chan error

	mu    sync.Mutex
	busy  map[net.Conn]bool // the connections with a request under way
	grace time.Duration
}

// CrossSitePrefix begins the served site's twin host: a page at
// http://TOKEN.localhost:PORT finds the same files, on another site, at
// http://cross-TOKEN.localhost:PORT (and back).
const CrossSitePrefix = "cross-"

// Serve starts the server for dir.
func Serve(dir string) (*Server, error) {
	root, err := servableRoot(dir)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("serve %s: %w", dir, err)
	}
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		ln.Close()
		return nil, fmt.Errorf("serve %s: %w", dir, err)
	}
	token := hex.EncodeToString(b[:])
	port := ln.Addr().(*net.TCPAddr).Port
	hosts := map[string]bool{
		fmt.Sprintf("%s.localhost:%d", token, port):                    true,
		fmt.Sprintf("%s%s.localhost:%d", CrossSitePrefix, token, port): true,
	}
	return serveOn(ln, fmt.Sprintf("http://%s.localhost:%d", token, port), siteHandler(root, hosts)), nil
}

// serveOn serves h on ln until Close.
func serveOn(ln net.Listener, url string, h http.Handler) *Server {
	s := &Server{URL: url, done: make(chan error, 1), grace: closeGrace, busy: map[net.Conn]bool{}}
	s.srv = &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ConnState: s.track}
	go func() { s.done <- s.srv.Serve(ln) }() // owned by s; ends in Close
	return s
}

// track counts the connections with a request under way: net/http moves
// a connection to StateActive once a request's header is read, and out of
// it when the response is written (to idle) or the connection ends; a
// connection may end while active without passing idle.
func (s *Server) track(c net.Conn, st http.ConnState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st == http.StateActive {
		s.busy[c] = true
	} else {
		delete(s.busy, c)
	}
}

// underWay is how many requests are under way.
func (s *Server) underWay() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.busy)
}

// servableRoot resolves dir (links included) and refuses a folder that
// would expose far more than a site: the root, the home folder, or any
// folder that holds the home folder.
func servableRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return "", fmt.Errorf("serve: %s: %w", dir, err)
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return "", fmt.Errorf("serve: %s is not a folder", dir)
	}
	refuse := func(what string) error {
		return fmt.Errorf("serve: %s is %s: serve the folder of the site's own files, e.g. serve: ./site", dir, what)
	}
	if abs == "/" {
		return "", refuse("the root of the file system")
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		if h, err := filepath.EvalSymlinks(home); err == nil {
			home = h
		}
		if abs == home {
			return "", refuse("the home folder")
		}
		if strings.HasPrefix(home, abs+string(filepath.Separator)) {
			return "", refuse("a folder that holds the home folder")
		}
	}
	return abs, nil
}

// siteHandler serves root's plain files to requests for one of hosts.
func siteHandler(root string, hosts map[string]bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hosts[strings.ToLower(r.Host)] {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		p, ok := servedPath(r.URL.Path)
		if !ok {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		if strings.HasSuffix(r.URL.Path, "/index.html") {
			// As http.FileServer does: a folder's index is at the folder.
			to := strings.TrimSuffix(r.URL.Path, "index.html")
			if r.URL.RawQuery != "" {
				to += "?" + r.URL.RawQuery
			}
			http.Redirect(w, r, to, http.StatusMovedPermanently)
			return
		}
		full, err := filepath.EvalSymlinks(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil || (full != root && !strings.HasPrefix(full, root+string(filepath.Separator))) {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		st, err := os.Stat(full)
		if err != nil {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		if st.IsDir() {
			if !strings.HasSuffix(r.URL.Path, "/") {
				http.Redirect(w, r, r.URL.Path+"/", http.StatusMovedPermanently)
				return
			}
			full = filepath.Join(full, "index.html")
			if st, err = os.Stat(full); err != nil {
				// No listings: a folder without an index is not a page.
				http.Error(w, "not found", http.StatusNotFound)
				return
			}
		}
		if !st.Mode().IsRegular() {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		f, err := os.Open(full)
		if err != nil {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		defer f.Close()
		http.ServeContent(w, r, st.Name(), st.ModTime(), f)
	})
}

// closeGrace is how long Close lets requests under way end.
const closeGrace = 250 * time.Millisecond

// closePoll is how often Close looks whether the requests under way ended.
const closePoll = 2 * time.Millisecond

// servedPath cleans a request's path, refusing any part that begins with
// a dot (dotfiles and dot folders: .git, .env, .ssh). Pure.
func servedPath(p string) (string, bool) {
	p = path.Clean("/" + p)
	for _, part := range strings.Split(p, "/") {
		if strings.HasPrefix(part, ".") {
			return "", false
		}
	}
	return strings.TrimPrefix(p, "/"), true
}

// Close stops the server and waits for it. Requests under way (their
// handler started) get a moment to end (closeGrace); then every
// connection is closed at once. A browser that outlives the run (an
// attached one) keeps connections it opened ahead of need, on which no
// request ever comes, and keeps idle ones alive: http.Server.Shutdown would wait for the first kind (it
// counts a new connection as busy for 5 s) and wait out its grace at the
// end of every run, so Close waits only for requests.
func (s *Server) Close() error {
	// The listener closes first: no connection is accepted after this.
	// A request that comes on one opened before is not answered (net/http
	// closes such a connection once shutting down), as with Shutdown alone.
	err := s.srv.Shutdown(closedContext)
	for deadline := time.Now().Add(s.grace); s.underWay() > 0 && time.Now().Before(deadline); {
		time.Sleep(closePoll)
	}
	if errors.Is(err, context.Canceled) {
		err = s.srv.Close()
	}
	if serr := <-s.done; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}

// closedContext is already done: Shutdown given it closes the listener
// and the idle connections, and returns without waiting for the rest.
var closedContext = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()
