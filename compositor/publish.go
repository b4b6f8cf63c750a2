package compositor

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"golang.org/x/sys/unix"
)

// publisher writes outputs under temporary names beside their destinations
// and renames them all into place at the end, or removes them all.
type publisher struct {
	items []pubItem
	// newOnly: the output names came from a take, which is data. Each
	// destination must not exist when it is reserved, and is created
	// without replacing anything that appeared since: nothing clapper did
	// not write in this render is removed or overwritten.
	newOnly bool
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
	if p.newOnly {
		if _, err := os.Lstat(dest); err == nil {
			return "", &ExistsError{Path: dest}
		}
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
		if p.newOnly {
			if err := renameNew(it.tmp, it.dest); err != nil {
				if errors.Is(err, fs.ErrExist) {
					err = &ExistsError{Path: it.dest}
				}
				errs = append(errs, fmt.Errorf("publish %s: %w", it.dest, err))
				continue
			}
			p.items[i].tmp = ""
			continue
		}
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

// ExistsError is an output a take named that is already there: a take's
// own output names only make new files.
type ExistsError struct{ Path string }

func (e *ExistsError) Error() string {
	return fmt.Sprintf("%s already exists, and its name came from the take's render.json: a take only names new files (remove it, or render with -o %s to replace it)", e.Path, e.Path)
}

// renameNew renames src to dst only if dst does not exist, atomically
// (renameat2's RENAME_NOREPLACE). Where the file system lacks it, a file
// is linked then unlinked, which fails on an existing dst too; a folder
// is renamed after a check.
func renameNew(src, dst string) error {
	err := unix.Renameat2(unix.AT_FDCWD, src, unix.AT_FDCWD, dst, unix.RENAME_NOREPLACE)
	if err == nil {
		return nil
	}
	if errors.Is(err, unix.EEXIST) {
		return &os.LinkError{Op: "rename", Old: src, New: dst, Err: fs.ErrExist}
	}
	if !errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.ENOSYS) {
		return &os.LinkError{Op: "rename", Old: src, New: dst, Err: err}
	}
	st, err := os.Lstat(src)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		if err := os.Link(src, dst); err != nil {
			return err
		}
		return os.Remove(src)
	}
	if _, err := os.Lstat(dst); err == nil {
		return &os.LinkError{Op: "rename", Old: src, New: dst, Err: fs.ErrExist}
	}
	return os.Rename(src, dst)
}
