package timeline

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A file of a take that is a pipe, a device (through a link) or far too
// large is refused by Open and Verify at once, naming the file and the
// limit; memory and time stay flat.
func TestHostileTakeFilesRefusedAtOnce(t *testing.T) {
	for _, c := range []struct {
		name, file string
		make       func(p string)
		want       string
	}{
		{"timeline fifo", TimelineFile, func(p string) { syscall.Mkfifo(p, 0o644) }, "not a regular file (a pipe)"},
		{"timeline /dev/zero", TimelineFile, func(p string) { os.Symlink("/dev/zero", p) }, "symbolic link"},
		{"timeline huge", TimelineFile, func(p string) {
			f, _ := os.Create(p)
			f.Truncate(1 << 30) // sparse
			f.Close()
		}, "may hold at most 64 MiB"},
		{"frame fifo", FramePath(0), func(p string) { syscall.Mkfifo(p, 0o644) }, "a pipe"},
		{"frames index fifo", FramesFile, func(p string) { syscall.Mkfifo(p, 0o644) }, "a pipe"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := copyTake(t)
			p := filepath.Join(dir, c.file)
			os.Remove(p)
			c.make(p)
			start := time.Now()
			v := Verify(dir)
			err := v.Err()
			if c.file == TimelineFile {
				if _, oerr := Open(dir); oerr == nil || !strings.Contains(oerr.Error(), c.want) {
					t.Errorf("Open: %v, want %q", oerr, c.want)
				}
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Verify: %v, want %q", err, c.want)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

// A frame index whose frames all claim one sequence number, or a frame
// that names another's picture, fails verification.
func TestVerifyRefusesRepeatedSequenceNumbers(t *testing.T) {
	for _, edit := range []func(i int, fr *Frame){
		func(i int, fr *Frame) { fr.Seq = 0 },
		func(i int, fr *Frame) { fr.File = FramePath(0) },
	} {
		dir := copyTake(t)
		p := filepath.Join(dir, FramesFile)
		b, _ := os.ReadFile(p)
		var out bytes.Buffer
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 1<<20)
		i := 0
		for sc.Scan() {
			var fr Frame
			if json.Unmarshal(sc.Bytes(), &fr) != nil {
				continue
			}
			edit(i, &fr)
			i++
			l, _ := json.Marshal(fr)
			out.Write(append(l, '\n'))
		}
		os.WriteFile(p, out.Bytes(), 0o644)
		remanifest(t, dir)
		err := Verify(dir).Err()
		if err == nil || !(strings.Contains(err.Error(), "sequence numbers must increase") || strings.Contains(err.Error(), "not its own picture")) {
			t.Errorf("frames with one sequence number or picture: %v", err)
		}
	}
}

// Times and counts no run could write are refused when the take opens.
func TestOpenRangeChecksTimesAndCounts(t *testing.T) {
	for name, fn := range map[string]func(m map[string]any){
		"end 9e18":         func(m map[string]any) { m["end"] = 9e18 },
		"negative start":   func(m map[string]any) { m["start"] = -5 },
		"a step far later": func(m map[string]any) { m["steps"].([]any)[0].(map[string]any)["end"] = 9e18 },
	} {
		dir := copyTake(t)
		editTimelineJSON(t, dir, fn)
		if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), TimelineFile) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// A take folder with a folder its manifest does not account for fails
// verification, naming the folder.
func TestVerifyRefusesAnUnlistedFolder(t *testing.T) {
	dir := copyTake(t)
	os.MkdirAll(filepath.Join(dir, "extra", "deeper"), 0o755)
	if err := Verify(dir).Err(); err == nil || !strings.Contains(err.Error(), "extra: extra folder") {
		t.Errorf("an unlisted folder: %v", err)
	}
	if err := Verify(copyTake(t)).Err(); err != nil {
		t.Errorf("the kept take: %v", err)
	}
}

// A take recovered from a killed run (a journal, no timeline) is verified
// as recovered, and says so, instead of failing on the missing timeline.
func TestVerifyChecksARecoveredTakeAsRecovered(t *testing.T) {
	dir := t.TempDir()
	writeJournal(t, dir)
	os.MkdirAll(filepath.Join(dir, FramesDir), 0o755)
	os.WriteFile(filepath.Join(dir, FramesFile), nil, 0o644)
	v := Verify(dir)
	if err := v.Err(); err != nil {
		t.Errorf("recovered take: %v", err)
	}
	if len(v.Warnings) != 1 || v.Warnings[0] != RecoveredWarning {
		t.Errorf("warnings %q, want the recovered warning", v.Warnings)
	}
}
