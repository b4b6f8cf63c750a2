package film

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/clapper-dev/clapper/internal/exit"
	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
)

// ReplayScript is the take's copy of its script and the folder its
// relative paths start from: dir when given, else the folder the script
// was run from, which must still be there.
func ReplayScript(old *timeline.Take, dir string) (script, from string, err error) {
	script = filepath.Join(old.Dir, timeline.ScriptFile)
	if _, err := os.Stat(script); err != nil {
		return "", "", &exit.Error{Code: exit.Failed, Err: fmt.Errorf("the take keeps no copy of its script (%s): run the script again with clapper run --baseline", timeline.ScriptFile)}
	}
	if dir != "" {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return "", "", exit.Usagef("--dir %s: not a folder", dir)
		}
		return script, dir, nil
	}
	from = filepath.Dir(old.Timeline.Script)
	if st, err := os.Stat(from); old.Timeline.Script == "" || err != nil || !st.IsDir() {
		return "", "", exit.Usagef("the folder the take's script was run from (%s) is not here: pass --dir with the folder its relative paths (serve:, includes) start from", from)
	}
	return script, from, nil
}

// SecretsGivenAgain refuses a replay whose script had secret values masked
// in the take when a secret it declares is not given again (-e or the
// environment): the take keeps no secret. It reads the script's secrets:
// list as the loader does; the loader checks the rest.
func SecretsGivenAgain(script, dir string, env map[string]string, lookup func(string) (string, bool)) error {
	b, err := os.ReadFile(script)
	if err != nil {
		return err
	}
	_, lerr := scripts.Load(script, scripts.LoadOptions{Env: env, LookupEnv: lookup, Dir: dir})
	if lerr == nil || !strings.Contains(string(b), scripts.Masked) {
		return nil // the run loads it again and says what is wrong
	}
	return exit.Usagef("%s: the take hides its secrets' values (%s): give each secret the script declares again with -e NAME=VALUE or in the environment\n%v", script, scripts.Masked, lerr)
}

// ShownPath is path relative to the working folder when it is under it,
// else as it is.
func ShownPath(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	if rel, err := filepath.Rel(wd, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}
