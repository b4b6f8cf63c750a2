package session

import "testing"

func TestWrappedProgram(t *testing.T) {
	progs := map[string]bool{"/usr/lib/chromium/chromium-headless-shell": true, "/usr/lib/chromium/chromium": true}
	is := func(p string) bool { return progs[p] }
	for _, c := range []struct {
		path, head, want string
	}{
		// Debian's headless shell wrapper: the program is started, not exec'd.
		{"/usr/bin/chromium-headless-shell", "#!/bin/sh\n# comment\n/usr/lib/chromium/chromium-headless-shell \"$@\"\n", "/usr/lib/chromium/chromium-headless-shell"},
		// Debian's chromium wrapper names its program through variables.
		{"/usr/bin/chromium", "#!/bin/sh\nAPPNAME=chromium\nLIBDIR=/usr/lib/$APPNAME\nexec $LIBDIR/$APPNAME $CHROMIUM_FLAGS \"$@\"\n", "/usr/bin/chromium"},
		// A program is itself.
		{"/usr/lib/chromium/chromium", "\x7fELF\x02\x01", "/usr/lib/chromium/chromium"},
		// A path of the same name that is no program, or the script itself.
		{"/opt/x/chromium-headless-shell", "#!/bin/sh\n/opt/y/chromium-headless-shell \"$@\"\n", "/opt/x/chromium-headless-shell"},
		{"/usr/bin/chromium-headless-shell", "#!/bin/sh\nexec /usr/bin/chromium-headless-shell.real \"$@\" # /usr/bin/chromium-headless-shell\n", "/usr/bin/chromium-headless-shell"},
		// Another program's name is not the wrapped one.
		{"/usr/bin/chromium-headless-shell", "#!/bin/sh\n/usr/lib/chromium/chromium \"$@\"\n", "/usr/bin/chromium-headless-shell"},
	} {
		if got := wrappedProgram(c.path, []byte(c.head), is); got != c.want {
			t.Errorf("%s: %s, want %s", c.path, got, c.want)
		}
	}
}
