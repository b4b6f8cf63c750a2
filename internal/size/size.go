// Package size reads and writes the WIDTHxHEIGHT sizes of the script
// language, the render settings and the command line ("1920x1080"). It
// imports nothing of clapper's, so the leaf packages may use it.
package size

import (
	"fmt"
	"strconv"
	"strings"
)

// Pattern is a regular expression for the sizes Parse accepts, for
// validators and the JSON Schema.
const Pattern = `^\s*[0-9]+\s*[xX]\s*[0-9]+\s*$`

// Parse reads "WIDTHxHEIGHT" (an upper-case X and spaces around it are
// accepted) into positive whole numbers. A side too large to read is
// said to be too large, not the form to be wrong.
func Parse(s string) (w, h int, err error) {
	ws, hs, ok := strings.Cut(strings.ToLower(strings.TrimSpace(s)), "x")
	if ok {
		w, err = strconv.Atoi(strings.TrimSpace(ws))
		if err == nil {
			h, err = strconv.Atoi(strings.TrimSpace(hs))
		}
	}
	if ne, isNum := err.(*strconv.NumError); isNum && ne.Err == strconv.ErrRange && !strings.HasPrefix(ne.Num, "-") {
		return 0, 0, fmt.Errorf("size %q: %s pixels is too large for a side", s, ne.Num)
	}
	if !ok || err != nil || w <= 0 || h <= 0 {
		return 0, 0, fmt.Errorf("size %q: write WIDTHxHEIGHT, like 1920x1080", s)
	}
	return w, h, nil
}

// format writes a size as Parse reads it.
func format(w, h int) string { return strconv.Itoa(w) + "x" + strconv.Itoa(h) }
