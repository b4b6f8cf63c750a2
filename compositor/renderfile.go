package compositor

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/clapper-dev/clapper/internal/outrules"
	"github.com/clapper-dev/clapper/internal/plainfile"
)

// RenderFile is a take's copy of its script's output settings, so that a
// re-render without the script starts from the same settings.
const RenderFile = "render.json"

// RenderConfig is the content of render.json: the script's output section.
type RenderConfig struct {
	Video  []string `json:"video"`
	FPS    int      `json:"fps,omitempty"`
	Width  int      `json:"width,omitempty"`
	Height int      `json:"height,omitempty"`
	Preset string   `json:"preset,omitempty"`
	// Options are the render options, checked by outrules' table as
	// they are read (outrules.Values.UnmarshalJSON).
	Options outrules.Values `json:"options,omitzero"`
}

// WriteRenderConfig writes render.json into a take folder.
func WriteRenderConfig(takeDir string, rc RenderConfig) error {
	b, err := json.MarshalIndent(rc, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(takeDir, RenderFile), append(b, '\n'), 0o644)
}

// ReadRenderConfig reads a take's render.json. A take without one renders
// with the defaults (the zero config); one that cannot be read or decoded
// is an error that names the file, never a silent default.
func ReadRenderConfig(takeDir string) (RenderConfig, error) {
	var rc RenderConfig
	path := filepath.Join(takeDir, RenderFile)
	b, err := plainfile.ReadFile(path, RenderFile, plainfile.Render, false)
	if errors.Is(err, fs.ErrNotExist) {
		return rc, nil
	}
	if err != nil {
		return rc, fmt.Errorf("read the take's render settings: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rc); err != nil {
		if ke := (*outrules.KeyError)(nil); errors.As(err, &ke) {
			return RenderConfig{}, fmt.Errorf("%s: %w (a take holds presentation settings only)", path, err)
		}
		return RenderConfig{}, fmt.Errorf("%s is corrupt (%v): fix or delete it to render with the defaults", path, err)
	}
	if err := rc.check(); err != nil {
		return RenderConfig{}, fmt.Errorf("%s: %w (a take holds presentation settings only)", path, err)
	}
	return rc, nil
}

// check refuses what a take may not hold: an output that is a path, and
// any option that is not a presentation setting (a program to run, a
// path to write). A take is data, never code.
func (rc RenderConfig) check() error {
	for _, v := range rc.Video {
		if err := outrules.CheckVideo(v); err != nil {
			return err
		}
	}
	s := DefaultSettings()
	s.Set(rc.Options)
	return s.Check()
}
