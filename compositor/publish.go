package compositor

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
		p.items = append(p.items, pubItem{tmp, dest, true})
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
// folder one by one, replacing frames of the same name and leaving anything
// else there alone.
func (p *publisher) commit() error {
	var errs []error
	for i, it := range p.items {
		if it.dir {
			if _, err := os.Stat(it.dest); err == nil {
				if err := mergeInto(it.tmp, it.dest); err != nil {
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

// mergeInto moves the files of folder src into folder dst.
func mergeInto(src, dst string) error {
	ents, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if err := os.Rename(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
			return err
		}
	}
	return nil
}
