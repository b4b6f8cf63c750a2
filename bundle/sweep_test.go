package bundle

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// What a command killed while unpacking left (a temporary copy, a hidden
// unpack folder beside the output) names its owner, and goes at the next
// sweep once that owner is gone; a live owner's copy stays.
func TestKilledUnpacksAreSwept(t *testing.T) {
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Skip("no true: ", err)
	}
	host, _ := os.Hostname()
	leave := func(dir string, pid int) {
		os.MkdirAll(filepath.Join(dir, "take", "frames"), 0o755)
		os.WriteFile(filepath.Join(dir, "take", "frames", "000001.jpg"), make([]byte, 1000), 0o644)
		b, _ := json.Marshal(map[string]any{"pid": pid, "host": host, "since": "2026-01-01T00:00:00Z"})
		os.WriteFile(filepath.Join(dir, ownerFile), b, 0o644)
	}
	tmp := t.TempDir()
	dead, live := filepath.Join(tmp, tempPrefix+"1"), filepath.Join(tmp, tempPrefix+"2")
	leave(dead, gone.Process.Pid)
	leave(live, os.Getpid())
	if got := SweepTemp(tmp); len(got) != 1 || got[0] != dead {
		t.Errorf("swept %v, want only %s", got, dead)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("a live command's copy was removed: %v", err)
	}

	// A killed unpack's hidden folder beside the output goes at the next
	// unpack there.
	src := filepath.Join(t.TempDir(), "x.clap")
	if _, err := PackContext(context.Background(), keptTake, src); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	hidden := filepath.Join(out, ".take"+unpackInfix+"7")
	leave(hidden, gone.Process.Pid)
	if _, err := UnpackContext(context.Background(), src, filepath.Join(out, "again"), DefaultLimits); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(hidden); !os.IsNotExist(err) {
		t.Errorf("a killed unpack's folder is still there: %v", err)
	}
	ents, _ := os.ReadDir(out)
	if len(ents) != 1 || ents[0].Name() != "again" {
		t.Errorf("left in the output folder: %v", ents)
	}
	if _, err := os.Stat(filepath.Join(out, "again", ownerFile)); err == nil {
		t.Error("the owner file ended up in the take")
	}
}
