package compare

import (
	"fmt"

	"github.com/clapper-dev/clapper/timeline"
)

// Pair is one step of the old take matched with one of the new: Old or
// New is -1 for a step only one take has.
type Pair struct {
	Old, New int
}

// signature is what a step is for matching: its kind, what it acted on and
// its label, and its position in the script (file, line, column) when the
// rest is the same. A step moved by lines added above it still pairs.
func signature(st timeline.Step, norm func(string) string) string {
	return fmt.Sprintf("%s\x00%s\x00%s", st.Kind, norm(st.Target), norm(st.Label))
}

// signatures are the steps' signatures, their addresses made the same in
// every run by norm (side.norm: the sample site's own port). Pure.
func signatures(steps []timeline.Step, norm func(string) string) []string {
	out := make([]string, len(steps))
	for i, st := range steps {
		out[i] = signature(st, norm)
	}
	return out
}

func same(s string) string { return s }

// maxMiddle bounds the steps the longest-common-sequence table covers
// each way, once the runs of steps the takes share at their starts and
// ends are set aside (memory grows with the product): past it, the middle
// steps pair in order.
const maxMiddle = 2000

// matchSteps pairs the steps of old and new in order: the longest common
// sequence of signatures, and what is left unpaired reported as removed
// (in old) or added (in new), in step order. Pure.
func matchSteps(old, new []timeline.Step) []Pair {
	return matchSignatures(signatures(old, same), signatures(new, same))
}

// matchSignatures is matchSteps over the steps' signatures. Pure.
func matchSignatures(old, new []string) []Pair {
	// The steps both takes start and end with pair at once.
	pre := 0
	for pre < len(old) && pre < len(new) && old[pre] == new[pre] {
		pre++
	}
	suf := 0
	for suf < len(old)-pre && suf < len(new)-pre && old[len(old)-1-suf] == new[len(new)-1-suf] {
		suf++
	}
	var out []Pair
	for i := 0; i < pre; i++ {
		out = append(out, Pair{i, i})
	}
	out = append(out, matchMiddle(old[pre:len(old)-suf], new[pre:len(new)-suf], pre, pre)...)
	for k := suf; k > 0; k-- {
		out = append(out, Pair{len(old) - k, len(new) - k})
	}
	return out
}

// matchMiddle pairs old and new (whose first steps are old0 and new0 of
// their takes) by their longest common sequence of signatures.
func matchMiddle(old, new []string, old0, new0 int) []Pair {
	n, m := len(old), len(new)
	var out []Pair
	if n > maxMiddle || m > maxMiddle {
		for k := 0; k < max(n, m); k++ {
			p := Pair{-1, -1}
			if k < n {
				p.Old = old0 + k
			}
			if k < m {
				p.New = new0 + k
			}
			out = append(out, p)
		}
		return out
	}
	// lcs[i][j] is the length of the longest common sequence of old[i:]
	// and new[j:].
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if old[i] == new[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case old[i] == new[j]:
			out = append(out, Pair{old0 + i, new0 + j})
			i, j = i+1, j+1
		case lcs[i+1][j] >= lcs[i][j+1]:
			out = append(out, Pair{old0 + i, -1})
			i++
		default:
			out = append(out, Pair{-1, new0 + j})
			j++
		}
	}
	for ; i < n; i++ {
		out = append(out, Pair{old0 + i, -1})
	}
	for ; j < m; j++ {
		out = append(out, Pair{-1, new0 + j})
	}
	return out
}
