package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clapper-dev/clapper/compare"
	"github.com/clapper-dev/clapper/internal/testenv"
)

const replaySite = `<!doctype html><title>Shop</title>
<style>body{font:16px sans-serif;margin:24px} #buy{background:BUTTON;color:#fff;border:0;padding:8px 16px}</style>
<p>Clock: <span id="clock"></span></p>
<input id="q" placeholder="code"> <button id="buy">Buy</button>
<p id="done"></p>
EXTRAHTML
<script>
document.getElementById('clock').textContent = new Date().toISOString();
const done = () => { document.getElementById('done').textContent = 'Done'; };
document.getElementById('buy').onclick = () => { EXTRA; setTimeout(done, DELAY); };
</script>`

const replayScriptText = `name: shop
serve: ./site
secrets: [SHOP_TOKEN]
browser: {viewport: {width: 480, height: 270}}
mask: ["#clock"]
steps:
  - goto: ${serve.url}/index.html
  - type: {into: "#q", text: "${SHOP_TOKEN}"}
  - click: "#buy"
  - wait: {text: Done}
`

// A baseline made by run --update; replay without the secret refused;
// replay against a site whose button changed colour and which now logs an
// error: each found at its step, the masked clock never; run --baseline
// fails on the change, --update accepts it, and the next run passes.
func TestReplayAndBaseline(t *testing.T) {
	testenv.Need(t, "chromium-headless-shell")
	dir := t.TempDir()
	site := func(button, extra, extraHTML, delay string) {
		t.Helper()
		html := strings.NewReplacer("BUTTON", button, "EXTRAHTML", extraHTML, "EXTRA", extra, "DELAY", delay).Replace(replaySite)
		if err := os.WriteFile(filepath.Join(dir, "site", "index.html"), []byte(html), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(dir, "site"), 0o755)
	site("#2563eb", "", "", "0")
	script := filepath.Join(dir, "shop.yaml")
	os.WriteFile(script, []byte(replayScriptText), 0o644)
	base := filepath.Join(dir, "baselines", "shop.clap")
	run := func(out string, extra ...string) (string, string, int) {
		t.Helper()
		args := append([]string{"run", script, "-o", filepath.Join(dir, out), "--no-video", "-q", "--capture", "studio", "-e", "SHOP_TOKEN=s3cr3t-code"}, sandboxArgs()...)
		return runCLI(t, append(args, extra...)...)
	}

	// No baseline yet: refused before anything launches, unless --update.
	if _, stderr, code := run("none", "--baseline", base); code != exitUsage || !strings.Contains(stderr, "no baseline at") {
		t.Fatalf("missing baseline: exit %d: %s", code, stderr)
	}
	if _, stderr, code := run("first", "--baseline", base, "--update"); code != 0 {
		t.Fatalf("run --update: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(base); err != nil {
		t.Fatalf("no baseline made: %v", err)
	}

	// The take keeps no secret: a replay must be given it again.
	replay := func(out string, extra ...string) (string, string, int) {
		t.Helper()
		args := append([]string{"replay", base, "-o", filepath.Join(dir, out), "-q"}, sandboxArgs()...)
		return runCLI(t, append(args, extra...)...)
	}
	if _, stderr, code := replay("nosecret"); code != exitUsage || !strings.Contains(stderr, "SHOP_TOKEN") {
		t.Errorf("replay without the secret: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "nosecret", "take")); err == nil {
		t.Error("a replay refused for its secret still filmed")
	}

	// Nothing changed (the clock did, masked): no finding.
	if stdout, stderr, code := replay("same", "-e", "SHOP_TOKEN=s3cr3t-code"); code != 0 || !strings.Contains(stdout, "no differences in 4 steps") {
		t.Fatalf("replay of an unchanged site: exit %d\n%s%s", code, stdout, stderr)
	}

	// The button's colour, a new console error, an image now missing
	// (404), and the answer 2 s later.
	site("#dc2626", "console.error('stock check failed')", `<img src="gone.png" width="1" height="1" alt="">`, "2000")
	stdout, stderr, code := replay("changed", "-e", "SHOP_TOKEN=s3cr3t-code")
	if code != exitFailed {
		t.Fatalf("replay of a changed site: exit %d\n%s%s", code, stdout, stderr)
	}
	if st, err := os.Stat(filepath.Join(dir, "changed", "diff.html")); err != nil || st.Size() == 0 {
		t.Errorf("no diff report beside the replay: %v", err)
	}
	var res compare.Result
	b, err := os.ReadFile(filepath.Join(dir, "changed", "diff.json"))
	if err != nil || json.Unmarshal(b, &res) != nil {
		t.Fatalf("diff.json: %v", err)
	}
	got := map[string]int{}
	for _, f := range res.Findings {
		if _, ok := got[f.What]; !ok {
			got[f.What] = f.New
		}
		if f.What == compare.FindingPicture {
			for _, r := range f.Regions {
				// The button is on the second line, right of the input;
				// the clock's line above it is masked.
				if r.Y < 30 || r.Y > 120 || r.W > 200 {
					t.Errorf("a changed region %+v is not the button's", r)
				}
			}
		}
	}
	if s, ok := got[compare.FindingPicture]; !ok || s != 0 {
		t.Errorf("the button's colour: found at step %v (%v), want step 0 (goto); findings %+v", s, ok, res.Findings)
	}
	// The error is logged by the click's handler; its event is stamped
	// when it reaches clapper, which may be in the step after.
	if s, ok := got[compare.FindingConsole]; !ok || (s != 2 && s != 3) {
		t.Errorf("the console error: found at step %v (%v), want step 2 (click) or 3; findings %+v", s, ok, res.Findings)
	}
	// The image's request is sent while the goto loads; its event too is
	// stamped when it reaches clapper, and a studio goto may take no
	// virtual time at all: on a loaded machine it reached clapper as the
	// next step began.
	if s, ok := got[compare.FindingRequest]; !ok || (s != 0 && s != 1) {
		t.Errorf("the missing image: found at step %v (%v), want step 0 (goto) or 1; findings %+v", s, ok, res.Findings)
	}
	if s, ok := got[compare.FindingDuration]; !ok || s != 3 {
		t.Errorf("the slower answer: found at step %v (%v), want step 3 (wait); findings %+v", s, ok, res.Findings)
	}
	for _, f := range res.Findings {
		if f.What == compare.FindingDuration && f.Fails {
			t.Error("a slower step fails without --max-slowdown")
		}
	}
	if len(got) != 4 {
		t.Errorf("findings of other kinds: %+v", res.Findings)
	}
	if !strings.Contains(stdout, "shop.yaml:7: step 1 (goto) picture:") || !strings.Contains(stdout, "console: a new console error: stock check failed") {
		t.Errorf("the findings' lines do not name their steps:\n%s", stdout)
	}

	// run --baseline fails on the change; --update accepts it.
	if stdout, stderr, code := run("again", "--baseline", base); code != exitFailed || !strings.Contains(stderr, "differs from the baseline") {
		t.Errorf("run against the old baseline: exit %d\n%s%s", code, stdout, stderr)
	}
	if stdout, stderr, code := run("accept", "--baseline", base, "--update"); code != 0 || !strings.Contains(stdout, "compared with") {
		t.Errorf("run --update: exit %d\n%s%s", code, stdout, stderr)
	}
	if stdout, stderr, code := run("after", "--baseline", base); code != 0 || !strings.Contains(stdout, "no differences") {
		t.Errorf("run against the new baseline: exit %d\n%s%s", code, stdout, stderr)
	}
}
