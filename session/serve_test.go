package session

import (
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// serve: answers only under its token hosts, only the folder's own plain
// files (no dotfile, nothing a link leads out to), and refuses to serve
// the root, the home folder or an ancestor of it.
func TestServeExposesOnlyTheSite(t *testing.T) {
	for _, dir := range []string{"/", os.Getenv("HOME"), filepath.Dir(os.Getenv("HOME"))} {
		if dir == "" {
			continue
		}
		if s, err := Serve(dir); err == nil {
			s.Close()
			t.Errorf("serve %s: served", dir)
		}
	}
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "shadow"), []byte("secret"), 0o600)
	site := t.TempDir()
	os.WriteFile(filepath.Join(site, "index.html"), []byte("<p>home</p>"), 0o644)
	os.WriteFile(filepath.Join(site, ".env"), []byte("TOKEN=1"), 0o644)
	os.Mkdir(filepath.Join(site, ".git"), 0o755)
	os.WriteFile(filepath.Join(site, ".git", "config"), []byte("x"), 0o644)
	os.Mkdir(filepath.Join(site, "empty"), 0o755)
	os.Symlink(filepath.Join(outside, "shadow"), filepath.Join(site, "shadow.html"))
	os.Symlink(outside, filepath.Join(site, "out"))
	srv, err := Serve(site)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	if !strings.HasSuffix(u.Hostname(), ".localhost") || len(u.Hostname()) < 32 {
		t.Fatalf("served at %s, want a token host under .localhost", srv.URL)
	}
	// The test's client resolves the token hosts to the server's port, as
	// Chromium does with *.localhost.
	client := &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{}).DialContext}}
	get := func(host, p string) (int, string) {
		req, _ := http.NewRequest("GET", "http://127.0.0.1:"+u.Port()+p, nil)
		req.Host = host
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get(u.Host, "/"); code != 200 || !strings.Contains(body, "home") {
		t.Errorf("the site's index: %d %q", code, body)
	}
	if code, _ := get(CrossSitePrefix+u.Host, "/index.html"); code != 200 {
		t.Errorf("the cross-site twin: %d", code)
	}
	for _, host := range []string{"127.0.0.1:" + u.Port(), "localhost:" + u.Port(), "x" + u.Host} {
		if code, _ := get(host, "/index.html"); code != 404 {
			t.Errorf("host %s: %d, want 404", host, code)
		}
	}
	for _, p := range []string{"/.env", "/.git/config", "/shadow.html", "/out/shadow", "/../" + filepath.Base(outside) + "/shadow", "/empty/"} {
		if code, body := get(u.Host, p); code != 404 || strings.Contains(body, "secret") {
			t.Errorf("%s: %d %q, want 404", p, code, body)
		}
	}
}

// Close does not wait for a connection on which no request came (a
// browser opens some ahead of need) nor for an idle one, however long its
// grace; it lets a request under way end.
func TestServeCloseWaitsOnlyForRequests(t *testing.T) {
	release, entered := make(chan struct{}), make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			close(entered)
			<-release
		}
		io.WriteString(w, "ok")
	})
	serveWith := func(t *testing.T) (*Server, string) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		s := serveOn(ln, "http://"+ln.Addr().String(), h)
		s.grace = time.Hour // a Close that waited for the wrong connection would not return
		return s, ln.Addr().String()
	}
	closed := func(s *Server) chan error {
		done := make(chan error, 1)
		go func() { done <- s.Close() }()
		return done
	}
	// within: net/http's Shutdown gives up on a connection with no
	// request after 5 s; a Close that waited for one would take that long.
	ended := func(t *testing.T, done chan error, within time.Duration) {
		t.Helper()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("close: %v", err)
			}
		case <-time.After(within):
			t.Fatalf("Close took over %v: it waited for a connection with no request under way", within)
		}
	}

	t.Run("new and idle connections", func(t *testing.T) {
		s, addr := serveWith(t)
		ahead, err := net.Dial("tcp", addr) // opened ahead of need: no request
		if err != nil {
			t.Fatal(err)
		}
		defer ahead.Close()
		client := &http.Client{}
		resp, err := client.Get("http://" + addr + "/") // leaves an idle keep-alive connection
		if err != nil {
			t.Fatal(err)
		}
		io.ReadAll(resp.Body)
		resp.Body.Close()
		ended(t, closed(s), 3*time.Second)
	})

	t.Run("a request under way", func(t *testing.T) {
		s, addr := serveWith(t)
		got := make(chan string, 1)
		go func() {
			resp, err := http.Get("http://" + addr + "/slow")
			if err != nil {
				got <- err.Error()
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			got <- string(b)
		}()
		<-entered
		done := closed(s)
		for s.underWay() != 1 {
			time.Sleep(time.Millisecond)
		}
		select {
		case err := <-done:
			t.Fatalf("Close returned (%v) with a request under way", err)
		default:
		}
		close(release)
		if b := <-got; b != "ok" {
			t.Errorf("the request under way got %q, want its answer", b)
		}
		ended(t, done, time.Minute)
		if n := s.underWay(); n != 0 {
			t.Errorf("%d requests counted under way after Close", n)
		}
	})
}
