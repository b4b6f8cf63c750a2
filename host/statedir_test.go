package host

import "testing"

func TestStateDir(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	cases := []struct {
		flag, home string
		env        func(string) string
		dir, from  string
	}{
		{"/flag", "/home/ada", env("CLAPPER_STATE_DIR", "/env", "XDG_STATE_HOME", "/xdg"), "/flag", "--state-dir"},
		{"", "/home/ada", env("CLAPPER_STATE_DIR", "/env", "XDG_STATE_HOME", "/xdg"), "/env", "CLAPPER_STATE_DIR"},
		{"", "/home/ada", env("XDG_STATE_HOME", "/xdg"), "/xdg/clapper", "$XDG_STATE_HOME"},
		// A relative XDG_STATE_HOME is invalid and ignored, as the XDG
		// specification says.
		{"", "/home/ada", env("XDG_STATE_HOME", "xdg"), "/home/ada/.local/state/clapper", "the default"},
		{"", "/home/ada", env(), "/home/ada/.local/state/clapper", "the default"},
	}
	for _, c := range cases {
		dir, from, err := StateDirOf(c.flag, c.env, c.home)
		if dir != c.dir || from != c.from || err != nil {
			t.Errorf("StateDirOf(%q, home %q) = %q, %q, %v; want %q, %q", c.flag, c.home, dir, from, err, c.dir, c.from)
		}
	}
	if _, _, err := StateDirOf("", env(), ""); err == nil {
		t.Error("no home and nothing set: no error")
	}
}
