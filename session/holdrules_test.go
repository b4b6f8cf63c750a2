package session

import (
	"errors"
	"strings"
	"testing"
)

func TestStepRefusal(t *testing.T) {
	held := &receiptFacts{Receipt: "r1"}
	cases := []struct {
		name         string
		f            tabFacts
		presentation bool
		want         string // "" for allowed
		isHeld       bool
	}{
		{"free tab, input", tabFacts{Name: "s", Open: true}, false, "", false},
		{"free tab, presentation", tabFacts{Name: "s", Open: true}, true, "", false},
		{"held, input", tabFacts{Name: "s", Open: true, Held: held}, false, "held (receipt r1)", true},
		{"held, presentation", tabFacts{Name: "s", Open: true, Held: held}, true, "", false},
		{"fenced, input", tabFacts{Name: "s", Open: true, Fenced: "hold failed half way"}, false, "fenced", false},
		{"fenced, presentation", tabFacts{Name: "s", Open: true, Fenced: "x"}, true, "fenced", false},
		{"fenced and held", tabFacts{Name: "s", Open: true, Fenced: "x", Held: held}, true, "fenced", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := stepRefusal(c.f, c.presentation)
			wantRefusal(t, err, c.want)
			if errors.Is(err, ErrHeld) != c.isHeld {
				t.Errorf("errors.Is(err, ErrHeld) = %v, want %v", !c.isHeld, c.isHeld)
			}
		})
	}
}

func TestHoldRefusal(t *testing.T) {
	cases := []struct {
		name string
		f    tabFacts
		want string
	}{
		{"open", tabFacts{Name: "s", Open: true}, ""},
		{"not open", tabFacts{Name: "s"}, "no tab"},
		{"fenced", tabFacts{Name: "s", Open: true, Fenced: "x"}, "fenced"},
		{"closed", tabFacts{Name: "s", Open: true, Closed: true}, "closed"},
		{"crashed", tabFacts{Name: "s", Open: true, Crashed: true, Closed: true}, "crashed"},
		{"held", tabFacts{Name: "s", Open: true, Held: &receiptFacts{Receipt: "r1"}}, "already held (receipt r1)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantRefusal(t, holdRefusal(c.f), c.want) })
	}
}

func TestResumeRefusal(t *testing.T) {
	tabA, tabB := &Tab{Name: "s"}, &Tab{Name: "s"} // the same name, opened twice
	r := &receiptFacts{Receipt: "r1", Tab: tabA, Navs: 3}
	held := tabFacts{Name: "s", Open: true, Navs: 3, Held: r}
	with := func(mod func(*tabFacts)) tabFacts { f := held; mod(&f); return f }
	cases := []struct {
		name string
		f    tabFacts
		r    *receiptFacts
		tab  any
		want string
	}{
		{"valid", held, r, tabA, ""},
		{"no receipt", tabFacts{Name: "s", Open: true}, nil, tabA, "not held"},
		{"navigated", with(func(f *tabFacts) { f.Navs = 4 }), r, tabA, "stale: tab \"s\" navigated"},
		{"crashed", with(func(f *tabFacts) { f.Crashed = true }), r, tabA, "stale: tab \"s\" is crashed"},
		{"closed target", with(func(f *tabFacts) { f.Closed = true }), r, tabA, "stale: tab \"s\" is closed"},
		{"tab gone", tabFacts{Name: "s"}, r, nil, "stale: the tab \"s\" it held was closed"},
		{"reopened under the name", with(func(f *tabFacts) { f.Held = nil }), r, tabB, "stale: the tab \"s\" it held was closed"},
		{"consumed", with(func(f *tabFacts) { f.Held = nil }), r, tabA, "consumed already"},
		{"another receipt", with(func(f *tabFacts) { f.Held = &receiptFacts{Receipt: "r2", Tab: tabA, Navs: 3} }), r, tabA, "consumed already"},
		{"fenced", with(func(f *tabFacts) { f.Fenced = "x" }), r, tabA, "fenced"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantRefusal(t, resumeRefusal(c.f, c.r, c.tab), c.want) })
	}
}

func TestFences(t *testing.T) {
	if fences(stageNothing) || !fences(stagePartial) {
		t.Error("only a partial hold or resume fences its tab")
	}
}

func wantRefusal(t *testing.T, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("refused: %v", err)
	case want != "" && err == nil:
		t.Errorf("allowed, want refused with %q", want)
	case want != "" && !strings.Contains(err.Error(), want):
		t.Errorf("refused with %q, want %q", err, want)
	}
}
