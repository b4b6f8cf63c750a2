package outrules

import "testing"

func TestCheckFPS(t *testing.T) {
	for fps := -1; fps <= 130; fps++ {
		if ok := CheckFPS(fps) == nil; ok != (fps >= 1 && fps <= 120) {
			t.Errorf("CheckFPS(%d) accepted %v", fps, ok)
		}
	}
	for _, fps := range []int{24, 25, 30, 50, 60} {
		if CheckFPS(fps) != nil {
			t.Errorf("common rate %d refused", fps)
		}
	}
}

func TestCheckSize(t *testing.T) {
	for _, c := range []struct {
		w, h int
		ok   bool
	}{
		{1920, 1080, true}, {16, 16, true}, {8192, 8192, true}, {1080, 1920, true}, {7680, 4320, true},
		{14, 16, false}, {16, 14, false}, {8194, 16, false}, {16, 8194, false}, {0, 0, false}, {-2, 2, false},
		{1921, 1080, false}, {1920, 1081, false}, {17, 17, false},
	} {
		if ok := CheckSize(c.w, c.h) == nil; ok != c.ok {
			t.Errorf("CheckSize(%d, %d) accepted %v, want %v", c.w, c.h, ok, c.ok)
		}
	}
}

func TestCheckVideoAndPreset(t *testing.T) {
	for name, ok := range map[string]bool{
		"a.mp4": true, "demo video.webm": true, "x.gif": true, "shots.png": true,
		"a.mov": false, "dir/a.mp4": false, `dir\a.mp4`: false, ".mp4": false, ".hidden.mp4": false, "..": false, "": false, "a.mp4.txt": false,
	} {
		if got := CheckVideo(name) == nil; got != ok {
			t.Errorf("CheckVideo(%q) accepted %v, want %v", name, got, ok)
		}
	}
	for _, p := range Presets {
		if CheckPreset(p) != nil {
			t.Errorf("preset %q refused", p)
		}
	}
	if CheckPreset("cinema") == nil || CheckPreset("") == nil {
		t.Error("an unknown preset was accepted")
	}
}
