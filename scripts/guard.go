package scripts

import (
	"bytes"
	"github.com/clapper-dev/clapper/internal/plainfile"

	"github.com/goccy/go-yaml/ast"
)

// maxScriptBytes bounds a script file (and each file it includes): the
// longest sample is a few kilobytes.
const maxScriptBytes = plainfile.Script

// readScript reads a script file: a regular file of at most
// maxScriptBytes (a device such as /dev/zero, or a pipe, is refused before
// it is read), without a UTF-8 byte order mark.
func readScript(path string) ([]byte, error) {
	// Opened without blocking (a pipe is refused, never waited on), and
	// checked before a byte is read. A script may be a link: it is code
	// the user chose.
	b, err := plainfile.ReadFile(path, "a script", maxScriptBytes, true)
	if err != nil {
		return nil, err
	}
	return bytes.TrimPrefix(b, []byte("\ufeff")), nil
}

// tooDeep returns where src's flow collections first nest deeper than max
// (line and column from 1), or 0, 0. It reads as YAML does, well enough to
// bound it: a [ or { opens a collection inside one, or where a value
// starts (after a key's colon, a list's dash, at a line's start); quoted
// scalars and comments are skipped. The YAML parser's memory grows
// steeply with that depth (a 200 KB file of nested brackets took it past
// 6 GB), so Load refuses a script deeper than maxDepth, the decoder's own
// bound, before the parser sees it. Pure.
func tooDeep(src []byte, max int) (line, col int) {
	depth := 0
	line, col = 1, 0
	var quote byte     // ' or " inside a quoted scalar
	prev := byte('\n') // the last byte not a blank on this line; '\n' at its start
	for i := 0; i < len(src); i++ {
		c := src[i]
		col++
		if c == '\n' {
			line, col = line+1, 0
			if quote == 0 {
				prev = '\n'
			}
			continue
		}
		if quote != 0 {
			switch {
			case quote == '"' && c == '\\':
				i++
				col++
			case c == quote && quote == '\'' && i+1 < len(src) && src[i+1] == '\'':
				i++
				col++
			case c == quote:
				quote = 0
			}
			continue
		}
		// In block context a value starts at a line's start, after a
		// key's colon or a dash; in a flow collection after its bracket or
		// brace or a comma too. A bracket inside a flow collection opens
		// one wherever it stands; a quote only where a value starts
		// (it's is a plain word).
		starts := bytes.IndexByte([]byte("\n:-?"), prev) >= 0 || depth > 0 && bytes.IndexByte([]byte("[{,"), prev) >= 0
		switch c {
		case ' ', '\t', '\r':
			continue
		case '#':
			if prev == '\n' || i > 0 && (src[i-1] == ' ' || src[i-1] == '\t') {
				for i+1 < len(src) && src[i+1] != '\n' {
					i++
				}
				continue
			}
		case '\'', '"':
			if starts {
				quote = c
			}
		case '[', '{':
			if starts || depth > 0 {
				depth++
				if depth > max {
					return line, col
				}
			}
		case ']', '}':
			if depth > 0 {
				depth--
			}
		}
		prev = c
	}
	return 0, 0
}

// maxExpandedNodes bounds a file's YAML nodes with every alias counted as
// the nodes it stands for: aliases of lists of aliases multiply (six
// levels of ten stand for a million nodes, and validating them took
// tens of seconds), and a script of hundreds of
// steps has a few thousand nodes.
const maxExpandedNodes = 200_000

// expandedSize counts n's nodes with each alias counted as its anchor's,
// memoized per node; past limit it returns limit+1. A node met again while
// it is being counted (an alias inside its own anchor) counts as past the
// limit.
func (d *decoder) expandedSize(n ast.Node, memo map[ast.Node]int, limit int) int {
	return d.nodeCount(n, memo, limit, true)
}

// nodeCount counts n's nodes, each alias as its anchor's when follow is
// set, else as one node.
func (d *decoder) nodeCount(n ast.Node, memo map[ast.Node]int, limit int, follow bool) int {
	if n == nil {
		return 0
	}
	if v, ok := memo[n]; ok {
		return v
	}
	memo[n] = limit + 1 // in progress
	sum := 1
	count := func(x ast.Node) { sum = min(sum+d.nodeCount(x, memo, limit, follow), limit+1) }
	switch v := n.(type) {
	case *ast.DocumentNode:
		count(v.Body)
	case *ast.MappingNode:
		for _, mv := range v.Values {
			count(mv)
		}
	case *ast.MappingValueNode:
		count(v.Key)
		count(v.Value)
	case *ast.MappingKeyNode:
		count(v.Value)
	case *ast.SequenceNode:
		for _, e := range v.Values {
			count(e)
		}
	case *ast.AnchorNode:
		count(v.Value)
	case *ast.TagNode:
		count(v.Value)
	case *ast.AliasNode:
		if v.Value != nil && follow {
			if target, ok := d.anchors[v.Value.GetToken().Value]; ok {
				count(target)
			}
		}
	}
	memo[n] = sum
	return sum
}

// tooLarge says, as an error at the file's start, when root expands past
// maxExpandedNodes through its aliases.
func (d *decoder) tooLarge(root ast.Node) bool {
	if d.expandedSize(root, map[ast.Node]int{}, maxExpandedNodes) <= maxExpandedNodes {
		return false
	}
	if d.nodeCount(root, map[ast.Node]int{}, maxExpandedNodes, false) > maxExpandedNodes {
		// Too large as written, aliases or not: say so, not that aliases
		// are to blame.
		d.errorf(Pos{File: d.file, Line: 1, Col: 1}, "this file is too long: it has more than %d YAML nodes (a script of a few hundred steps has a few thousand): split it into several scripts", maxExpandedNodes)
		return true
	}
	d.errorf(Pos{File: d.file, Line: 1, Col: 1}, "this file stands for more than %d YAML nodes once its aliases are expanded: use fewer aliases of lists of aliases", maxExpandedNodes)
	return true
}
