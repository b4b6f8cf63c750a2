package scripts

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// OwnTime is what a step takes by itself, whatever the page does.
func TestOwnTime(t *testing.T) {
	d := Defaults{TypeDelay: 60 * time.Millisecond}
	for _, c := range []struct {
		name string
		a    Action
		want time.Duration
	}{
		{"a pause", Pause{Duration: 15 * time.Second}, 15 * time.Second},
		{"a handoff", Handoff{Timeout: 10 * time.Minute}, 10 * time.Minute},
		{"keys at their delay", Type{Text: "abcd", Delay: 100 * time.Millisecond}, 300 * time.Millisecond},
		{"keys at the default delay", Type{Text: "abcd"}, 180 * time.Millisecond},
		{"characters, not bytes", Type{Text: "é日本🚀"}, 180 * time.Millisecond},
		{"one key", Type{Text: "a"}, 0},
		{"no key", Type{}, 0},
		{"a scroll", Scroll{Duration: 900 * time.Millisecond}, 900 * time.Millisecond},
		{"a scroll at the default", Scroll{}, DefaultScroll},
		{"a click", Click{}, 0},
		{"a wait", Wait{}, 0},
	} {
		if got := OwnTime(c.a, d); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// A timeout written on a step that is not longer than what the step takes
// by itself is refused at its place: the step could never pass. A longer
// one, a default one and a handoff's are not.
func TestTimeoutShorterThanTheStepRefused(t *testing.T) {
	for _, c := range []struct {
		name, steps string
		want        string // "" for a script that loads
		line, col   int
	}{
		{"a pause", "  - pause: 2s\n    timeout: 1s\n",
			"timeout 1s is not longer than the 2s this pause takes by itself (the pause)", 4, 14},
		{"as long as the pause", "  - pause: 2s\n    timeout: 2s\n", "timeout 2s is not longer than the 2s", 4, 14},
		{"keys", "  - type: {into: \"#q\", text: abcdef, delay: 500ms}\n    timeout: 2s\n",
			"timeout 2s is not longer than the 2.5s this type takes by itself (its 6 keys, 500ms apart)", 4, 14},
		{"keys at the script's delay", "  - type: {into: \"#q\", text: abcdef}\n    timeout: 1s\n", "", 0, 0},
		{"a scroll", "  - scroll: {by: 600, duration: 2s}\n    timeout: 1500ms\n",
			"timeout 1.5s is not longer than the 2s this scroll takes by itself (the scroll's duration)", 4, 14},
		{"a scroll at the default duration", "  - scroll: {by: 600}\n    timeout: 500ms\n", "than the 600ms this scroll takes", 4, 14},
		{"from a repeat", "  - repeat:\n      times: 2\n      steps:\n        - pause: 3s\n    timeout: 1s\n",
			"s.yaml:6:11, which it applies to, takes by itself (the pause)", 7, 14},
		{"longer", "  - pause: 2s\n    timeout: 3s\n", "", 0, 0},
		{"a scroll to an element, which may be in view", "  - scroll: {to: \"#end\", duration: 2s}\n    timeout: 1s\n", "", 0, 0},
		{"the default timeout", "defaults: {timeout: 1s}\nsteps:\n  - pause: 2s\n", "", 0, 0},
		{"a handoff's own wait", "browser: {headless: false}\nsteps:\n  - handoff: {until: {visible: \"#done\"}, timeout: 10m}\n    timeout: 1m\n", "", 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := c.steps
			if !strings.HasPrefix(src, "defaults") && !strings.HasPrefix(src, "browser") {
				src = "steps:\n  - goto: about:blank\n" + src
			}
			dir := writeScript(t, map[string]string{"s.yaml": src})
			_, err := Load(filepath.Join(dir, "s.yaml"), LoadOptions{})
			if c.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var es Errors
			if !errors.As(err, &es) || len(es) != 1 {
				t.Fatalf("want one error, got %v", err)
			}
			e := es[0]
			if !strings.Contains(e.Msg, c.want) || !strings.Contains(e.Msg, "make it longer, or leave it out") {
				t.Errorf("error %q, want it to say %q and what to do", e.Msg, c.want)
			}
			if e.Pos.Line != c.line || e.Pos.Col != c.col {
				t.Errorf("at %d:%d, want %d:%d (the timeout's value)", e.Pos.Line, e.Pos.Col, c.line, c.col)
			}
		})
	}
}

// The refusal of a typing step that holds a secret does not count its
// keys: that would tell the secret's length.
func TestTimeoutRefusalKeepsASecretsLength(t *testing.T) {
	dir := writeScript(t, map[string]string{"s.yaml": "secrets: [PW]\nsteps:\n  - type: {into: \"#p\", text: \"${PW}\", delay: 1s}\n    timeout: 2s\n"})
	_, err := Load(filepath.Join(dir, "s.yaml"), LoadOptions{LookupEnv: fakeEnv(map[string]string{"PW": "hunter2hunter2"})})
	if err == nil || !strings.Contains(err.Error(), "(its keys, 1s apart)") || strings.Contains(err.Error(), "14 keys") || strings.Contains(err.Error(), "13s") {
		t.Errorf("err = %v, want the refusal without the number of keys", err)
	}
}
