package compositor

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/clapper-dev/clapper/timeline"
)

// vttTime formats an output time as WebVTT hh:mm:ss.mmm.
func vttTime(d time.Duration) string {
	ms := d.Milliseconds()
	return fmt.Sprintf("%02d:%02d:%02d.%03d", ms/3600000, ms/60000%60, ms/1000%60, ms%1000)
}

// vttText escapes cue text.
func vttText(s string) string {
	s = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "\r", "").Replace(s)
	s = strings.ReplaceAll(s, "-->", "--&gt;")
	// A blank line would end the cue.
	for strings.Contains(s, "\n\n") {
		s = strings.ReplaceAll(s, "\n\n", "\n")
	}
	return strings.TrimSpace(s)
}

// cueSpan maps a take interval to output times through the schedule, at tick
// precision; ok is false when nothing of it is kept.
func cueSpan(s *Schedule, a, b timeline.Time) (time.Duration, time.Duration, bool) {
	k0, k1 := s.TickOf(a), s.TickOf(b)
	if k1 <= k0 {
		return 0, 0, false
	}
	return time.Duration(s.tickOutput(k0)), time.Duration(s.tickOutput(k1)), true
}

// writeCaptionsVTT writes the captions as WebVTT cues on the output clock.
func writeCaptionsVTT(w io.Writer, cs []Caption, s *Schedule) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("WEBVTT\n")
	n := 0
	for _, c := range cs {
		a, b, ok := cueSpan(s, c.Start, c.End)
		if !ok {
			continue
		}
		n++
		fmt.Fprintf(bw, "\n%d\n%s --> %s\n%s\n", n, vttTime(a), vttTime(b), vttText(c.Text))
	}
	return bw.Flush()
}

// chapterSpans returns each kept chapter's output interval: from its start
// to the next chapter's, the last to the end of the video.
func chapterSpans(cs []Chapter, s *Schedule) (starts []time.Duration, titles []string) {
	for _, c := range cs {
		k := s.TickOf(c.At)
		if k >= s.Ticks() {
			continue
		}
		at := time.Duration(s.tickOutput(k))
		if n := len(starts); n > 0 && starts[n-1] == at {
			titles[n-1] = c.Title // same instant: the later title wins
			continue
		}
		starts = append(starts, at)
		titles = append(titles, c.Title)
	}
	return starts, titles
}

// writeChaptersVTT writes the chapters as a WebVTT chapters track.
func writeChaptersVTT(w io.Writer, cs []Chapter, s *Schedule) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("WEBVTT\n")
	starts, titles := chapterSpans(cs, s)
	for i, a := range starts {
		b := s.Duration()
		if i+1 < len(starts) {
			b = starts[i+1]
		}
		fmt.Fprintf(bw, "\nchapter-%d\n%s --> %s\n%s\n", i+1, vttTime(a), vttTime(b), vttText(titles[i]))
	}
	return bw.Flush()
}

// metaEscape escapes an ffmetadata value.
func metaEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "=", `\=`, ";", `\;`, "#", `\#`, "\n", "\\\n").Replace(s)
}

// writeFFMetadata writes the chapters as an ffmetadata file for the
// container (times in milliseconds of the output).
func writeFFMetadata(w io.Writer, cs []Chapter, s *Schedule, title string) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(";FFMETADATA1\n")
	if title != "" {
		fmt.Fprintf(bw, "title=%s\n", metaEscape(title))
	}
	starts, titles := chapterSpans(cs, s)
	for i, a := range starts {
		b := s.Duration()
		if i+1 < len(starts) {
			b = starts[i+1]
		}
		fmt.Fprintf(bw, "\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=%d\nEND=%d\ntitle=%s\n", a.Milliseconds(), b.Milliseconds(), metaEscape(titles[i]))
	}
	return bw.Flush()
}
