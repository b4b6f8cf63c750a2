package film

import (
	"github.com/clapper-dev/clapper/compositor"
	"github.com/clapper-dev/clapper/internal/exit"
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

func needsOf(s *scripts.Script, o Options, ffmpeg string) runNeeds {
	n := runNeeds{
		launch:    s.Browser.Attach == "" && o.Shared.Browser == "",
		chromium:  s.Browser.Chromium,
		noSandbox: o.NoSandbox || s.Browser.NoSandbox,
		render:    !o.NoVideo && len(s.Output.Video) > 0,
		ffmpeg:    ffmpeg,
	}
	if o.Chromium != "" {
		n.chromium = o.Chromium
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
			return &exit.Error{Code: exit.Usage, Err: session.ErrRootNeedsNoSandbox}
		}
		if _, err := findChromium(n.chromium); err != nil {
			return &exit.Error{Code: exit.Failed, Err: err}
		}
	}
	if n.render {
		if _, err := lookFFmpeg(n.ffmpeg); err != nil {
			return &exit.Error{Code: exit.Failed, Err: err}
		}
	}
	return nil
}

// The real look-ups, for run and doctor.
var (
	FindChromium = session.FindChromium
	LookFFmpeg   = compositor.LookFFmpeg
)
