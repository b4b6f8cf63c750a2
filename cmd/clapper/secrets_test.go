package main

import (
	"bytes"
	"encoding/json"
	"html"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clapper-dev/clapper/internal/testenv"
	"github.com/clapper-dev/clapper/timeline"
)

// secretForms are the ways a value can show in the bytes a run writes:
// as it is, escaped for a URL's query or path, as a browser writes it in
// an address, and each of those inside HTML or a JSON string.
func secretForms(v string) map[string]string {
	bases := map[string]string{"as is": v, "query-escaped": url.QueryEscape(v), "path-escaped": url.PathEscape(v),
		"in an address": strings.NewReplacer(" ", "%20", "<", "%3C", ">", "%3E").Replace(v)}
	forms := map[string]string{}
	for name, b := range bases {
		forms[name] = b
		forms[name+", HTML-escaped"] = html.EscapeString(b)
		j, _ := json.Marshal(b)
		forms[name+", JSON-escaped"] = strings.Trim(string(j), `"`)
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(b)
		forms[name+", JSON-escaped (plain)"] = strings.Trim(strings.TrimSpace(buf.String()), `"`)
	}
	return forms
}

// A secret used everywhere a script can use it (a URL, a label, typed
// text, a caption, an eval, a selector of a failing and retried step, an
// expectation that fails) reaches none of what the run writes or prints:
// the take, stdout, stderr, the JUnit report, the video, and the overlay
// scripts the compositor hands ffmpeg (browser bar, captions, keys, step
// labels), which a wrapper around ffmpeg collects.
func TestSecretsNeverLeave(t *testing.T) {
	testenv.Need(t, "chromium", "ffmpeg")
	const secret = "Sekr1t Tok3n/x&y<z>"
	dir := t.TempDir()
	site := filepath.Join(dir, "site")
	os.MkdirAll(site, 0o755)
	os.WriteFile(filepath.Join(site, "index.html"), []byte(`<!doctype html><title>Leak</title><input id="name" placeholder="Name"><button id="go">Go</button>`), 0o644)
	script := filepath.Join(dir, "leak.yaml")
	os.WriteFile(script, []byte(`name: leak
serve: ./site
secrets: [TOKEN]
output:
  video: leak.mp4
  fps: 30
  frame: {bar: true}
  keys: true
  captions: burn
  step_labels: true
steps:
  - goto: ${serve.url}/index.html?t=${TOKEN}#${TOKEN}
    label: Open with ${TOKEN}
  - type: {into: "#name", text: "${TOKEN}"}
    label: Type ${TOKEN}
  - press: Enter
  - caption: {text: "The token is ${TOKEN}", duration: 500ms}
  - eval: "window.token = '${TOKEN}'; document.title = 'Leak'"
  - click: "#missing-${TOKEN}"
    optional: true
    retries: 1
    timeout: 1s
  - eval: "throw new Error('bad ' + window.token)"
    optional: true
  - expect: {text: "${TOKEN} is not on the page"}
    timeout: 1s
    label: Look for ${TOKEN}
`), 0o644)
	collect := filepath.Join(dir, "overlays")
	os.MkdirAll(collect, 0o755)
	wrapper := filepath.Join(dir, "ffmpeg-wrapper")
	os.WriteFile(wrapper, []byte(`#!/bin/sh
for a in "$@"; do
  case "$a" in */clapper-render-*) d=$(dirname "$a"); cp -r "$d" "`+collect+`/$(basename "$d")-$$" 2>/dev/null ;; esac
done
exec ffmpeg "$@"
`), 0o755)
	out := filepath.Join(dir, "out")
	junit := filepath.Join(dir, "junit.xml")
	args := append([]string{"run", script, "-o", out, "--junit", junit, "-e", "TOKEN=" + secret}, sandboxArgs()...)
	// The built binary, not the app in process: whatever any part prints
	// straight to the process's stderr is then caught too.
	stdout, stderr, code := runCLIEnv(t, []string{"CLAPPER_FFMPEG=" + wrapper}, args...)
	if code != exitFailed {
		t.Fatalf("exit %d, want 1 (the last expectation fails); stderr:\n%s", code, stderr)
	}
	// What is wrong with a selector that holds the secret is not said: it
	// would quote part of the secret ("/" at character 23).
	if !strings.Contains(stderr, `the selector "#missing-•••" is not valid CSS (the browser refused it; fix it in the script)`) {
		t.Errorf("stderr does not say the selector was refused, plainly:\n%s", stderr)
	}
	for _, want := range []string{"retrying after", "failed, optional", `#missing-•••`, `text "••• is not on the page"`} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "leak.mp4")); err != nil {
		t.Fatalf("no video: %v", err)
	}
	if ents, _ := os.ReadDir(collect); len(ents) == 0 {
		t.Fatal("the ffmpeg wrapper collected no overlay scripts")
	}
	outputs := map[string][]byte{"stdout": []byte(stdout), "stderr": []byte(stderr)}
	for _, root := range []string{out, collect, junit} {
		filepath.Walk(root, func(path string, fi os.FileInfo, err error) error {
			if err == nil && !fi.IsDir() {
				b, _ := os.ReadFile(path)
				outputs[path] = b
			}
			return nil
		})
	}
	tk, err := timeline.Open(filepath.Join(out, "take"))
	if err != nil {
		t.Fatal(err)
	}
	masked := false
	for _, b := range tk.Timeline.Boundaries {
		masked = masked || (b.URL != nil && strings.HasSuffix(*b.URL, "?t=•••#•••"))
	}
	if !masked {
		for _, b := range tk.Timeline.Boundaries {
			if b.URL != nil {
				t.Logf("boundary %d: %s", b.Document, *b.URL)
			}
		}
		t.Errorf("no document boundary shows the masked address")
	}
	seenASS := false
	for name, b := range outputs {
		seenASS = seenASS || strings.HasSuffix(name, ".ass")
		for form, v := range secretForms(secret) {
			if bytes.Contains(b, []byte(v)) {
				t.Errorf("%s holds the secret (%s)", name, form)
			}
		}
	}
	if !seenASS {
		t.Error("no overlay script was checked")
	}
}
