package compositor

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ffmpegEnv adds glibc's allocator settings to the environment unless the
// user set them, and changes nothing when turned off.
func TestFFmpegEnv(t *testing.T) {
	mmap, trim := ffmpegMalloc[0], ffmpegMalloc[1]
	cases := []struct {
		name    string
		environ []string
		keep    bool
		want    []string
	}{
		{"empty", nil, true, []string{mmap, trim}},
		{"others kept", []string{"PATH=/bin", "HOME=/root"}, true, []string{"PATH=/bin", "HOME=/root", mmap, trim}},
		{"user's threshold wins", []string{"MALLOC_TRIM_THRESHOLD_=0"}, true, []string{"MALLOC_TRIM_THRESHOLD_=0", mmap}},
		{"user's both win", []string{"MALLOC_MMAP_THRESHOLD_=1", "MALLOC_TRIM_THRESHOLD_=2"}, true, []string{"MALLOC_MMAP_THRESHOLD_=1", "MALLOC_TRIM_THRESHOLD_=2"}},
		{"an empty setting is a setting", []string{"MALLOC_MMAP_THRESHOLD_="}, true, []string{"MALLOC_MMAP_THRESHOLD_=", trim}},
		{"a longer name is another variable", []string{"MALLOC_TRIM_THRESHOLD_X=5"}, true, []string{"MALLOC_TRIM_THRESHOLD_X=5", mmap, trim}},
		{"off", []string{"PATH=/bin"}, false, []string{"PATH=/bin"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := slices.Clone(c.environ)
			got := ffmpegEnv(in, c.keep)
			if !slices.Equal(got, c.want) {
				t.Errorf("ffmpegEnv(%q, %v) = %q, want %q", c.environ, c.keep, got, c.want)
			}
			if !slices.Equal(in, c.environ) {
				t.Errorf("ffmpegEnv changed its input: %q", in)
			}
		})
	}
	for _, kv := range ffmpegMalloc {
		if !strings.HasPrefix(kv, "MALLOC_") || strings.Count(kv, "=") != 1 {
			t.Errorf("ffmpegMalloc entry %q is not NAME=VALUE", kv)
		}
	}
}

// Each ffmpeg run gets the allocator settings.
func TestFFmpegRunsWithMallocSettings(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "env")
	bin := filepath.Join(dir, "fake-ffmpeg")
	script := "#!/bin/sh\ncat >/dev/null\nenv > '" + out + "'\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, kv := range ffmpegMalloc { // settings the test's own environment might hold
		name := kv[:strings.IndexByte(kv, '=')]
		t.Setenv(name, "")
		os.Unsetenv(name)
	}
	feedFake(t, context.Background(), bin, nil)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	for _, kv := range ffmpegMalloc {
		if !slices.Contains(lines, kv) {
			t.Errorf("ffmpeg ran without %s; its environment:\n%s", kv, b)
		}
	}
}
