package scripts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAttachSharedAndClaim(t *testing.T) {
	s := loadSrc(t, "browser: {attach: shared, claim: \"url:/dashboard\"}\nsteps: [reload]\n", LoadOptions{}, nil)
	if s.Browser.Attach != AttachShared || s.Browser.Claim != "url:/dashboard" {
		t.Errorf("Browser = %+v", s.Browser)
	}
	for _, ok := range []string{"active", "index:0", "index:12", "url:/x", "title:Inbox", "0123456789ABCDEF0123456789abcdef"} {
		if msg := checkClaim(ok); msg != "" {
			t.Errorf("claim %q refused: %s", ok, msg)
		}
	}
	for _, bad := range []string{"", "first", "index:", "index:-1", "url:", "title:", "ABC", "id:x"} {
		if msg := checkClaim(bad); msg == "" {
			t.Errorf("claim %q accepted", bad)
		}
	}
	// A bad selector is refused at load, with its position.
	dir := t.TempDir()
	p := filepath.Join(dir, "demo.yaml")
	os.WriteFile(p, []byte("browser: {attach: shared, claim: first}\nsteps: [reload]\n"), 0o644)
	_, err := Load(p, LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), "demo.yaml:1:") || !strings.Contains(err.Error(), "browser.claim") {
		t.Errorf("bad claim: %v", err)
	}
}
