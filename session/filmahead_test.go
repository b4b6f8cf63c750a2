package session

import (
	"testing"

	"github.com/clapper-dev/clapper/leases"
	"github.com/clapper-dev/clapper/scripts"
)

// The film is moved ahead to the tab the next step pins it to only while
// the run still holds that tab's lease: a tab another run took is never
// filmed, not even for the frames before the film step refuses it.
func TestFilmAheadOnlyToALeasedTab(t *testing.T) {
	st, self, l := ownLease(t, "T2")
	main, stage := &Tab{Name: "main", events: &tabEvents{}}, &Tab{Name: "stage", events: &tabEvents{}}
	r := &run{
		s: &scripts.Script{Steps: []scripts.Step{
			{Kind: "tab", Action: scripts.Tab{Op: scripts.TabOpen, Name: "stage"}},
			{Kind: "film", Action: scripts.Film{Tab: "stage"}},
		}},
		tabs:    map[string]*Tab{"main": main, "stage": stage},
		current: main,
		shared: &sharedTabs{o: LeaseOptions{Store: st}, self: self, logf: t.Logf,
			held: map[string]heldTab{"stage": {id: "T2", token: l.Token()}}},
	}
	if got := r.filmAfterTabStep(0); got != stage {
		t.Fatalf("filmed %s ahead of the film step, want stage", got.Name)
	}
	// Another run takes the tab: the lease is no longer this run's.
	if _, _, err := st.Release("T2", r.shared.caller("stage")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.Claim(leases.Lease{Tab: "T2", Browser: "B", Label: "other", Tier: leases.Automatic}, leases.Caller{Pid: 424242, Start: 1}); err != nil {
		t.Fatal(err)
	}
	if got := r.filmAfterTabStep(0); got != main {
		t.Errorf("filmed %s, a tab another run holds, ahead of the film step; want main", got.Name)
	}
}
