package scripts

import (
	"os"
	"path/filepath"
	"testing"
)

func TestZZProbe2(t *testing.T) {
	dir := t.TempDir()
	for i, tgt := range []string{
		"{text: - item}", "{text: ? x}", "{text: true}", "{text: 123}", "{text: null}", "{testid: 42}",
		"{text: Sign in, exact: true}", "{css: '*', visible: true}", "{xpath: ..}", "{role: button, name: ...}",
		"{css: ..., nth: 0}", "{role: button, name: /save/i}", `{css: 'a:is(, .x)', visible: true}`,
		"'internal:hover'", "'a:is(:visible, .x)'", "'div /* a >> b */ p'", "'(//button)[2]'", "'#a:visible'",
		"{css: li, nth: -1}", "{text: a)b}", `"#"main""`,
	} {
		p := filepath.Join(dir, "s.yaml")
		os.WriteFile(p, []byte("steps:\n  - goto: https://example.com/\n  - click: "+tgt+"\n"), 0o644)
		s, err := Load(p, testOptions)
		if err != nil {
			t.Logf("%d %-40s => ERR %v", i, tgt, err)
		} else {
			t.Logf("%d %-40s => OK %+v", i, tgt, s.Steps[1].Action)
		}
	}
}
