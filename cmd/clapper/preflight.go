package main

import (
	"github.com/clapper-dev/clapper/compositor"
	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/session"
)

// A run checks what it will use before it launches or writes anything,
// and says in one line what to do when something is missing: the same
// line clapper doctor gives as the fix for that check. The lines are the
// errors of session.FindChromium, compositor.LookFFmpeg and
// session.ErrRootNeedsNoSandbox, so there is one wording of each.

// runNeeds is what a run will use, from its script and flags.
type runNeeds struct {
	launch    bool   // clapper launches Chromium (the script attaches to none)
	chromium  string // its executable, "" to search PATH
	noSandbox bool   // the explicit choice to run Chromium without its sandbox
	render    bool   // videos are rendered after the take
	ffmpeg    string // the ffmpeg executable, "" for PATH
}

func needsOf(s *scripts.Script, o runOptions, ffmpeg string) runNeeds {
	n := runNeeds{
		launch:    s.Browser.Attach == "" && o.shared.browser == "",
		chromium:  s.Browser.Chromium,
		noSandbox: o.noSandbox || s.Browser.NoSandbox,
		render:    !o.noVideo && len(s.Output.Video) > 0,
		ffmpeg:    ffmpeg,
	}
	if o.chromium != "" {
		n.chromium = o.chromium
	}
	return n
}

// preflight refuses a run that cannot work here: as root without the
// no-sandbox choice (a usage error, exit 2, as session.Launch would give),
// without Chromium, or without ffmpeg when videos are to be rendered (exit
// 1). Pure in its inputs.
func preflight(n runNeeds, euid int, findChromium, lookFFmpeg func(string) (string, error)) error {
	if n.launch {
		if euid == 0 && !n.noSandbox {
			return &exitError{code: exitUsage, err: session.ErrRootNeedsNoSandbox}
		}
		if _, err := findChromium(n.chromium); err != nil {
			return &exitError{code: exitFailed, err: err}
		}
	}
	if n.render {
		if _, err := lookFFmpeg(n.ffmpeg); err != nil {
			return &exitError{code: exitFailed, err: err}
		}
	}
	return nil
}

// The real look-ups, for run and doctor.
var (
	findChromium = session.FindChromium
	lookFFmpeg   = compositor.LookFFmpeg
)
