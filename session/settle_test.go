package session

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/clapper-dev/clapper/internal/testenv"
)

// A step that starts a navigation (Enter in a form) is followed by a
// settled screenshot that the navigation catches; it is given up without
// an error, and the run goes on at once (before, the screenshot failed
// with "not attached to an active page" every time, and sometimes waited
// out its 10 s bound, holding the run).
func TestSettleGivesWayToANavigation(t *testing.T) {
	testenv.Need(t, "chromium")
	dir := t.TempDir()
	site, _ := filepath.Abs("../samples/site")
	s := loadScript(t, "name: settle\nserve: "+site+"\ndefaults: {timeout: 20s}\nsteps:\n"+
		"  - goto: ${serve.url}/index.html\n"+
		"  - click: \"#start\"\n"+
		"  - type: {into: \"#email\", text: ada@example.com}\n"+
		"  - press: Enter\n"+
		"  - wait: {text: \"You're in!\"}\n")
	s.Browser.NoSandbox = testenv.NoSandbox()
	var mu sync.Mutex
	var lines []string
	o := RunOptions{TakeDir: filepath.Join(dir, "take"), Attach: liveEndpoint(t), Logf: func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, fmt.Sprintf(format, args...))
	}}
	res, err := Run(context.Background(), s, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed != nil {
		t.Fatalf("run failed: %v", res.Failed)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, l := range lines {
		if strings.Contains(l, "settle") {
			t.Errorf("the settled picture after a navigating step failed: %s", l)
		}
	}
}
