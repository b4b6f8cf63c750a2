package scripts

import (
	"fmt"
	"sort"
	"strings"
)

// String renders the position as file:line:col (file:line when the column
// is unknown, file alone when the line is).
func (p Pos) String() string {
	switch {
	case p.Line <= 0:
		return p.File
	case p.Col <= 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Error is one problem in a script, at a position.
type Error struct {
	Pos Pos
	Msg string
	// Source is the line of the file Pos points into, without its newline;
	// "" when unknown.
	Source string
}

// Error renders `file:line:col: message`, then the source line and a caret
// under the column.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Pos.String())
	b.WriteString(": ")
	b.WriteString(e.Msg)
	if e.Source == "" || e.Pos.Col <= 0 {
		return b.String()
	}
	b.WriteString("\n    ")
	b.WriteString(e.Source)
	b.WriteString("\n    ")
	col := 1
	for _, r := range e.Source {
		if col >= e.Pos.Col {
			break
		}
		if r == '\t' {
			b.WriteByte('\t')
		} else {
			b.WriteByte(' ')
		}
		col++
	}
	for ; col < e.Pos.Col; col++ {
		b.WriteByte(' ')
	}
	b.WriteByte('^')
	return b.String()
}

// Errors are all the problems found in a script, sorted by file, line and
// column. Load returns them all at once.
type Errors []*Error

func (es Errors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}

// Unwrap gives each *Error to errors.As and errors.Is.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// sortErrors orders errors by file, line, column and message, and drops
// exact duplicates (a repeated include reports its problems once).
func sortErrors(es []*Error) Errors {
	sort.SliceStable(es, func(i, j int) bool {
		a, b := es[i].Pos, es[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		return es[i].Msg < es[j].Msg
	})
	out := es[:0]
	for i, e := range es {
		if i > 0 && e.Pos == es[i-1].Pos && e.Msg == es[i-1].Msg {
			continue
		}
		out = append(out, e)
	}
	return Errors(out)
}

// suggest returns the candidate closest to word, or "" when none is close
// enough to be a likely misspelling.
func suggest(word string, candidates []string) string {
	best, bestD := "", 1<<30
	lw := strings.ToLower(word)
	for _, c := range candidates {
		if c == word {
			continue
		}
		d := editDistance(lw, strings.ToLower(c))
		if d < bestD {
			best, bestD = c, d
		}
	}
	n := len([]rune(word))
	limit := 3
	switch {
	case n <= 4:
		limit = 1
	case n <= 8:
		limit = 2
	}
	if best == "" || bestD > limit {
		return ""
	}
	return best
}

// didYouMean formats a suggestion as a message suffix.
func didYouMean(word string, candidates []string) string {
	if s := suggest(word, candidates); s != "" {
		return fmt.Sprintf("; did you mean %q?", s)
	}
	return ""
}

// editDistance is the optimal string alignment distance: insertions,
// deletions, substitutions and adjacent transpositions each cost one.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// quoteList renders names as `a, b or c`.
func quoteList(names []string, conj string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " " + conj + " " + names[len(names)-1]
}
