package film

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/clapper-dev/clapper/bundle"
	"github.com/clapper-dev/clapper/compare"
	"github.com/clapper-dev/clapper/internal/exit"
	"github.com/clapper-dev/clapper/timeline"
	"github.com/clapper-dev/clapper/viewer"
)

// Baseline are what a run compares its take against, and how.
type Baseline struct {
	// Path is the baseline take (folder or .clap), "" for none.
	Path string
	// Old is the baseline already opened (replay), nil to open path.
	Old *timeline.Take
	// Update makes the new take the baseline at path (when the run
	// passed), whatever the comparison says.
	Update bool
	Diff   compare.Options
	// CopyOf names the script a replay films (the take's copy), shown
	// in findings as ShownAs, the script the take was filmed from.
	CopyOf, ShownAs string
}

// checkBaseline refuses, before anything launches, a baseline that is not
// there (unless --update makes it), and a take folder whose pictures were
// pruned (a bundle is checked when it is opened).
func checkBaseline(b Baseline) error {
	if b.Path == "" || b.Old != nil {
		return nil
	}
	st, err := os.Stat(b.Path)
	if errors.Is(err, fs.ErrNotExist) {
		if b.Update {
			return nil
		}
		return exit.Usagef("no baseline at %s: film one with --update, or pass a take (folder or .clap) with --baseline", b.Path)
	}
	if err == nil && st.IsDir() {
		if err := RefusePruned(b.Path, b.Path); err != nil {
			return exit.Usagef("--baseline %v (remove it and film a new one with --update)", err)
		}
	}
	return nil
}

// compareBaseline compares the take a run wrote with its baseline, prints
// the findings, keeps the comparison beside the take (diff.json) and, with
// update, makes the new take the baseline. It returns an exit error when
// the comparison fails (and update was not asked).
func compareBaseline(ctx context.Context, b Baseline, takeDir, out string, passed bool, ui *UI) error {
	if b.Path == "" {
		return nil
	}
	tk, err := timeline.Open(takeDir)
	if err != nil {
		return err
	}
	old := b.Old
	if old == nil {
		if _, err := os.Stat(b.Path); errors.Is(err, fs.ErrNotExist) && b.Update {
			return updateBaseline(ctx, b.Path, takeDir, passed, ui)
		}
		var done func()
		if old, done, err = OpenTakeWithPictures(ctx, b.Path, ui.errw); err != nil {
			return err
		}
		defer done()
	}
	res, err := compare.Compare(old, tk, b.Diff)
	if err != nil {
		return err
	}
	for i := range res.Findings {
		if f := &res.Findings[i]; b.CopyOf != "" && f.File == b.CopyOf {
			f.File = b.ShownAs
		}
	}
	if j, err := json.MarshalIndent(res, "", "  "); err == nil {
		_ = os.WriteFile(filepath.Join(out, "diff.json"), append(j, '\n'), 0o644)
	}
	report := filepath.Join(out, "diff.html")
	if err := viewer.WriteDiffReport(report, old, tk, res); err != nil {
		ui.Warnf("the comparison's report was not written: %v", err)
	} else {
		ui.Printf("report: %s\n", report)
	}
	if w := ScriptWarning(old.Timeline, tk.Timeline); w != "" {
		ui.Warnf("warning: %s", w)
	}
	ui.Printf("compared with %s:\n", b.Path)
	PrintDiff(ui.out, res)
	if b.Update {
		return updateBaseline(ctx, b.Path, takeDir, passed, ui)
	}
	if res.Fails() {
		return &exit.Error{Code: exit.Failed, Err: fmt.Errorf("the take differs from the baseline %s (clapper run --update makes it the baseline)", b.Path)}
	}
	return nil
}

// updateBaseline makes the take in takeDir the baseline at path: a .clap
// written anew, or a folder replaced, each put in place whole. A failed
// run's take is not made a baseline.
func updateBaseline(ctx context.Context, path, takeDir string, passed bool, ui *UI) error {
	if !passed {
		ui.Warnf("the run failed: the baseline %s is left as it was", path)
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if bundle.IsBundle(path) {
		if _, err := bundle.PackContext(ctx, takeDir, path); err != nil {
			return fmt.Errorf("update the baseline: %w", err)
		}
		ui.Printf("baseline: %s\n", path)
		return nil
	}
	// A folder: the take is packed, unpacked beside the old baseline
	// (every file checked), and swapped in.
	tmp, err := os.MkdirTemp(filepath.Dir(path), "."+filepath.Base(path)+".new-")
	if err != nil {
		return fmt.Errorf("update the baseline: %w", err)
	}
	defer os.RemoveAll(tmp)
	clap := filepath.Join(tmp, "take"+bundle.Ext)
	if _, err := bundle.PackContext(ctx, takeDir, clap); err != nil {
		return fmt.Errorf("update the baseline: %w", err)
	}
	fresh := filepath.Join(tmp, "take")
	if _, err := bundle.UnpackContext(ctx, clap, fresh, bundle.DefaultLimits); err != nil {
		return fmt.Errorf("update the baseline: %w", err)
	}
	aside := filepath.Join(tmp, "old")
	if _, err := os.Stat(path); err == nil {
		if err := os.Rename(path, aside); err != nil {
			return fmt.Errorf("update the baseline: %w", err)
		}
	}
	if err := os.Rename(fresh, path); err != nil {
		_ = os.Rename(aside, path)
		return fmt.Errorf("update the baseline: %w", err)
	}
	ui.Printf("baseline: %s\n", path)
	return nil
}

// ScriptWarning says when two takes are not of the same script, "" when
// they are: their steps then pair up by chance, if at all. Pure.
func ScriptWarning(old, new *timeline.Timeline) string {
	if old.Name != new.Name {
		return fmt.Sprintf("the takes are of different scripts (%q and %q): steps are matched by place and kind all the same", old.Name, new.Name)
	}
	return ""
}

// PrintDiff writes a comparison for a person: one line per finding, its
// step's place in the script first, then one line of totals.
func PrintDiff(w io.Writer, res *compare.Result) {
	failing := 0
	for _, f := range res.Findings {
		fmt.Fprintln(w, timeline.Printable(FindingLine(f)))
		if f.Fails {
			failing++
		}
	}
	switch n := len(res.Findings); {
	case n == 0:
		fmt.Fprintf(w, "no differences in %d step%s\n", len(res.Steps), Plural(len(res.Steps)))
	case failing == 0:
		fmt.Fprintf(w, "%d step%s compared: %d finding%s, none that fails\n", len(res.Steps), Plural(len(res.Steps)), n, Plural(n))
	default:
		fmt.Fprintf(w, "%d step%s compared: %d finding%s, %d that fail%s\n", len(res.Steps), Plural(len(res.Steps)), n, Plural(n), failing, PluralVerb(failing))
	}
}

// FindingLine is one finding in a line: where (file:line), which step,
// what changed; a finding that does not fail says so. Pure.
func FindingLine(f compare.Finding) string {
	var b strings.Builder
	if f.File != "" {
		fmt.Fprintf(&b, "%s:%d: ", f.File, f.Line)
	} else if f.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", f.Line)
	}
	switch {
	case f.New >= 0:
		fmt.Fprintf(&b, "step %d (%s", f.New+1, f.Kind)
	case f.Old >= 0:
		fmt.Fprintf(&b, "old step %d (%s", f.Old+1, f.Kind)
	default:
		b.WriteString("(the page")
	}
	if f.Label != "" {
		fmt.Fprintf(&b, " %s", f.Label)
	}
	b.WriteString(")")
	if f.What != "" {
		fmt.Fprintf(&b, " %s", f.What)
	}
	b.WriteString(": " + f.Message)
	if !f.Fails {
		b.WriteString(" (reported, not failing)")
	}
	return b.String()
}

func Plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func PluralVerb(n int) string {
	if n == 1 {
		return "s"
	}
	return ""
}
