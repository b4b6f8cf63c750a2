package suite

import (
	"bytes"
	"cmp"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// IndexFile is the suite's page in its output folder.
const IndexFile = "index.html"

//go:embed index.html.tmpl
var indexTemplate string

var indexPage = template.Must(template.New("index").Parse(indexTemplate))

// statusRank orders the index: what needs a look first.
var statusRank = map[Status]int{Failed: 0, Broken: 1, Interrupted: 2, Flaky: 3, Passed: 4}

// indexRow is one script as the index shows it.
type indexRow struct {
	Entry
	Where    string // the failing step's file:line:col
	Duration string
	Thumb    template.URL // a data: URL, or ""
}

// WriteIndex writes the suite's page to path: totals, then every script,
// failures first, each with its status, duration, failing step and error,
// a picture of its last frame, and links to its report, video and take
// (relative to base, the summary's folder, so the page opens from
// file:// wherever the folder is copied). No script runs in it; its
// pictures are embedded.
func WriteIndex(path string, s *Summary, base string) error {
	rows := make([]indexRow, len(s.Scripts))
	for i, e := range s.Scripts {
		r := indexRow{Entry: e, Duration: (time.Duration(e.DurationMs) * time.Millisecond).Round(100 * time.Millisecond).String()}
		if e.Failure != nil {
			r.Where = e.Failure.Where()
		}
		if e.Thumb != "" {
			if b, err := os.ReadFile(filepath.Join(base, filepath.FromSlash(e.Thumb))); err == nil && len(b) < 1<<20 {
				r.Thumb = template.URL("data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(b))
			}
		}
		rows[i] = r
	}
	slices.SortStableFunc(rows, func(a, b indexRow) int { return cmp.Compare(statusRank[a.Status], statusRank[b.Status]) })
	title := "clapper suite"
	if s.Shard != nil {
		title += fmt.Sprintf(" (shard %s)", s.Shard)
	}
	var buf bytes.Buffer
	err := indexPage.Execute(&buf, map[string]any{
		"Title": title, "Totals": s.Totals, "Line": s.Totals.Line(), "OK": s.Totals.OK(), "Rows": rows,
		"Started": s.Started.Format(time.RFC3339), "Wall": (time.Duration(s.WallMs) * time.Millisecond).Round(100 * time.Millisecond).String(),
		"Workers": s.Workers, "Merged": s.Merged,
	})
	if err != nil {
		return err
	}
	return writeWhole(path, buf.Bytes())
}
