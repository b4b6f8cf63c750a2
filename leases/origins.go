package leases

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Origin records that clapper opened a tab. It outlives the tab's lease
// (release, expiry and reclaiming leave it) and goes only when the tab is
// gone. A tab without one was not opened by clapper as far as clapper
// knows: a person's, or another tool's.
type Origin struct {
	Tab     string    `json:"tab"`
	Browser string    `json:"browser"`
	Label   string    `json:"label"`
	Pid     int       `json:"pid"`
	Created time.Time `json:"created"`
}

func (s *Store) originPath(tab string) string { return filepath.Join(s.dir, "origins", tab+".json") }

// RecordOrigin notes that clapper opened tab.
func (s *Store) RecordOrigin(o Origin) error {
	b, err := json.Marshal(o)
	if err != nil {
		return err
	}
	tmp := s.originPath(o.Tab) + ".new"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("record tab %s: %w", o.Tab, err)
	}
	if err := os.Rename(tmp, s.originPath(o.Tab)); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("record tab %s: %w", o.Tab, err)
	}
	return nil
}

// Opened reports whether clapper opened tab in browser. A record that
// cannot be read counts as not opened: the unsafe guess would close a tab.
func (s *Store) Opened(tab, browser string) bool {
	b, err := os.ReadFile(s.originPath(tab))
	if err != nil {
		return false
	}
	var o Origin
	return json.Unmarshal(b, &o) == nil && o.Tab == tab && o.Browser == browser
}

// Forget drops tab's origin record (the tab is gone).
func (s *Store) Forget(tab string) {
	_ = os.Remove(s.originPath(tab))
}

// PruneOrigins drops the records of browser's tabs that are no longer
// open (open holds the ids of its pages, listed at listed), and returns
// how many went. A record made since the listing is left: its tab may
// have been opened after it.
func (s *Store) PruneOrigins(browser string, open map[string]bool, listed time.Time) int {
	ents, _ := os.ReadDir(filepath.Join(s.dir, "origins"))
	n := 0
	for _, e := range ents {
		tab, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || open[tab] {
			continue
		}
		b, err := os.ReadFile(s.originPath(tab))
		var o Origin
		if err != nil || json.Unmarshal(b, &o) != nil || o.Browser != browser {
			continue // another browser's, or unreadable: left alone
		}
		if !o.Created.Before(listed) {
			continue // opened since the listing, perhaps
		}
		if err := os.Remove(s.originPath(tab)); err == nil || errors.Is(err, os.ErrNotExist) {
			n++
		}
	}
	return n
}
