package compositor

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// publisher writes outputs under temporary names beside their destinations
// and renames them all into place at the end, or removes them all.
type publisher struct {
	items []pubItem
}

type pubItem struct {
	tmp, dest string
	dir       bool
	pattern   string // a PNG folder's frame names (pngPattern)
}

// reserve makes a temporary file (or, for PNG frames, folder) beside out and
// returns its path.
func (p *publisher) reserve(out string, folder bool) (string, error) {
	dest := out
	if folder {
		dest = pngFolder(out)
	}
	dir, base := filepath.Split(dest)
	if dir == "" {
		dir = "."
	}
	if folder {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
		tmp, err := os.MkdirTemp(dir, "."+base+".partial-*")
		if err != nil {
			return "", err
		}
		if err := os.Chmod(tmp, 0o755); err != nil {
			return "", err
		}
		p.items = append(p.items, pubItem{tmp, dest, true, pngPattern(out)})
		return tmp, nil
	}
	ext := filepath.Ext(base)
	f, err := os.CreateTemp(dir, "."+strings.TrimSuffix(base, ext)+".partial-*"+ext)
	if err != nil {
		return "", err
	}
	name := f.Name()
	f.Close()
	// CreateTemp makes the file private; a published video is not.
	if err := os.Chmod(name, 0o644); err != nil {
		return "", err
	}
	p.items = append(p.items, pubItem{tmp: name, dest: dest})
	return name, nil
}

// writeSidecar writes a small file to publish with the rest.
func (p *publisher) writeSidecar(dest string, write func(io.Writer) error) error {
	tmp, err := p.reserve(dest, false)
	if err != nil {
		return err
	}
	return writeFile(tmp, write)
}

// commit renames every temporary into place. A PNG folder is renamed into
// place when none exists; otherwise its frames are moved into the existing
// folder one by one, replacing frames of the same name, and the frames of
// its pattern that this render did not make (an earlier, longer render's)
// are removed: the folder holds one render's frames. Anything else there is
// left alone.
func (p *publisher) commit() error {
	var errs []error
	for i, it := range p.items {
		if it.dir {
			if _, err := os.Stat(it.dest); err == nil {
				if err := mergeInto(it.tmp, it.dest, it.pattern); err != nil {
					errs = append(errs, fmt.Errorf("publish %s: %w", it.dest, err))
					continue
				}
				os.Remove(it.tmp)
				p.items[i].tmp = ""
				continue
			}
		}
		if err := os.Rename(it.tmp, it.dest); err != nil {
			errs = append(errs, fmt.Errorf("publish %s: %w", it.dest, err))
			continue
		}
		p.items[i].tmp = ""
	}
	return errors.Join(errs...)
}

// abort removes whatever was not committed.
func (p *publisher) abort() {
	for _, it := range p.items {
		if it.tmp != "" {
			os.RemoveAll(it.tmp)
		}
	}
}

// mergeInto moves the files of folder src into folder dst, and removes
// from dst the files named by the frame pattern (printf's, as ffmpeg's
// image2 reads it) that src did not hold.
func mergeInto(src, dst, pattern string) error {
	ents, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	made := map[string]bool{}
	for _, e := range ents {
		if err := os.Rename(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
			return err
		}
		made[e.Name()] = true
	}
	re := framePatternRE(pattern)
	old, err := os.ReadDir(dst)
	if err != nil {
		return err
	}
	for _, e := range old {
		if !made[e.Name()] && e.Type().IsRegular() && re.MatchString(e.Name()) {
			if err := os.Remove(filepath.Join(dst, e.Name())); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
		}
	}
	return nil
}

// framePatternRE matches the names a printf frame pattern makes: each
// %d, with or without a width, is a run of digits; %% is a %. Pure.
func framePatternRE(pattern string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(pattern); i++ {
		if pattern[i] != '%' {
			b.WriteString(regexp.QuoteMeta(pattern[i : i+1]))
			continue
		}
		j := i + 1
		for j < len(pattern) && pattern[j] >= '0' && pattern[j] <= '9' {
			j++
		}
		switch {
		case j < len(pattern) && pattern[j] == 'd':
			b.WriteString(`[0-9]+`)
			i = j
		case j == i+1 && j < len(pattern) && pattern[j] == '%':
			b.WriteString("%")
			i = j
		default:
			b.WriteString(regexp.QuoteMeta("%"))
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}
