package film

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/clapper-dev/clapper/timeline"
)

// PrintSummary writes a take's summary as clapper inspect shows it: page
// errors first, then the frame accounting, steps, documents, receipts,
// holds and cleanup. Text from pages is escaped as it is written.
func PrintSummary(out io.Writer, s timeline.Summary) {
	w := timeline.PrintableWriter{W: out}
	fmt.Fprintf(w, "%s — %s, %.2fs, viewport %dx%d@%gx, clock %s\n", s.Name, s.Outcome, float64(s.DurationMs)/1000, s.Viewport.Width, s.Viewport.Height, s.Viewport.Scale, s.Clock)
	if s.Error != "" {
		fmt.Fprintf(w, "  error: %s\n", s.Error)
	}
	if r := s.Recovered; r != nil {
		fmt.Fprintf(w, "  recovered: %s; the timeline was rebuilt from the take's journal (clapper recover writes it)\n", r.Reason)
		for _, n := range r.Notes {
			fmt.Fprintf(w, "    %s\n", n)
		}
	}
	if s.Pruned != "" {
		fmt.Fprintf(w, "  pictures: %s\n", s.Pruned)
	}
	printPage(w, s.Page)
	f := s.Frames
	fmt.Fprintf(w, "\nframes: %d received = %d delivered + %d overflow + %d late + %d duplicates + %d rejected (upstream drops: %s); %.1f/s; capture %s\n",
		f.Received, f.Delivered, f.Overflow, f.Late, f.Duplicates, f.Rejected, f.Upstream, f.PerSecond, s.EndReason)
	fmt.Fprintf(w, "        %d of the delivered frames are screenshots the recorder took (first, settled, final)", f.Seeded)
	if len(f.ByTab) > 1 {
		fmt.Fprintf(w, "; by tab:")
		for _, tab := range slices.Sorted(maps.Keys(f.ByTab)) {
			fmt.Fprintf(w, " %s %d", tab, f.ByTab[tab])
		}
	}
	fmt.Fprintln(w)
	if f.Restarts > 0 {
		fmt.Fprintf(w, "        the screencast was started anew %d times, after each 750 ms of steady frames, so Chromium's capturer never locked onto one moving region and skipped the frames of another (frames sent twice while two overlapped count as duplicates)\n", f.Restarts)
	}
	if f.Mode == timeline.CaptureStudio {
		fmt.Fprintf(w, "        studio capture: one frame every %.3f ms of virtual time; %d more showed nothing new (repeats of the last picture, not stored)\n", f.FrameIntervalMs, f.Repeats)
		if f.Pictures != "" {
			fmt.Fprintf(w, "        pictures from the %s", f.Pictures)
			if f.Missed > 0 {
				fmt.Fprintf(w, "; %d drawn frames' pictures never came (the picture before stands for each), and the capture took screenshots from the first on", f.Missed)
			}
			fmt.Fprintln(w)
		}
	}
	// A take of several tabs says which tab each step ran in and each
	// document was filmed in.
	several := severalTabs(s)
	fmt.Fprintf(w, "\nsteps:\n")
	for _, st := range s.Steps {
		label := ""
		if several && st.Tab != "" {
			label = "  in " + st.Tab
		}
		if st.Label != "" {
			label += " · " + st.Label
		}
		fmt.Fprintf(w, "  %3d  line %-4d %-10s %-12s %7.2fs → %7.2fs%s\n", st.Index+1, st.Line, st.Kind, st.Outcome, float64(st.StartMs)/1000, float64(st.EndMs)/1000, label)
		if st.Error != "" {
			fmt.Fprintf(w, "       %s\n", strings.ReplaceAll(st.Error, "\n", "\n       "))
		}
		if l := st.Late; l != nil {
			fmt.Fprintf(w, "       late: %s\n", l.Text())
		}
	}
	fmt.Fprintf(w, "\ndocuments:\n")
	for _, b := range s.Boundaries {
		u := "(address longer than 8192 characters)"
		if b.URL != nil {
			u = *b.URL
		}
		if several && b.Tab != "" {
			u = "[" + b.Tab + "] " + u
		}
		fmt.Fprintf(w, "  %2d  at %7.2fs after frame %d  %s\n", b.Document, float64(b.AtMs)/1000, b.LastSeq, u)
	}
	// A shape receipt sends nothing: said apart from the inputs.
	fmt.Fprintf(w, "\ninput receipts: %d", s.Receipts-s.ByKind[timeline.PointerShape])
	for _, k := range slices.Sorted(maps.Keys(s.ByKind)) {
		if k != timeline.PointerShape {
			fmt.Fprintf(w, "  %s %d", k, s.ByKind[k])
		}
	}
	if n := s.ByKind[timeline.PointerShape]; n > 0 {
		fmt.Fprintf(w, "; cursor shapes read again on a new page: %d", n)
	}
	fmt.Fprintln(w)
	if len(s.Holds) > 0 {
		fmt.Fprintf(w, "\nholds:\n")
		for _, h := range s.Holds {
			fmt.Fprintf(w, "  %s  receipt %s  %.2fs → %.2fs (%.2fs)", h.Tab, h.Receipt, float64(h.StartMs)/1000, float64(h.EndMs)/1000, float64(h.EndMs-h.StartMs)/1000)
			if h.MaxMs > 0 {
				fmt.Fprintf(w, "  max %.2fs", float64(h.MaxMs)/1000)
			}
			if h.Ended != "" {
				fmt.Fprintf(w, "  ended by %s", h.Ended)
			}
			if h.Error != "" {
				fmt.Fprintf(w, ": %s", h.Error)
			}
			fmt.Fprintln(w)
		}
	}
	if c := s.Cleanup; c != nil {
		fmt.Fprintf(w, "\ncleanup: connection %s, process %s, profile %s\n", c.Connection, c.Process, c.Profile)
	}
}

// severalTabs says whether the take's steps ran in, or its documents
// were filmed in, more than one tab. Pure.
func severalTabs(s timeline.Summary) bool {
	tabs := map[string]bool{}
	for _, st := range s.Steps {
		tabs[st.Tab] = true
	}
	for _, b := range s.Boundaries {
		tabs[b.Tab] = true
	}
	delete(tabs, "")
	return len(tabs) > 1
}

// printPage prints what the pages said, errors first: the console errors,
// uncaught errors and failed requests, then the counts.
func printPage(w io.Writer, p *timeline.PageSummary) {
	if p == nil {
		return
	}
	if len(p.Errors) > 0 {
		fmt.Fprintf(w, "\npage errors:\n")
		for _, e := range p.Errors {
			fmt.Fprintf(w, "  %7.2fs  %s\n", float64(e.AtMs)/1000, pageEventLine(e.PageEvent))
			if e.Source != "" && e.Kind != timeline.PageRequest {
				fmt.Fprintf(w, "            at %s\n", e.Source)
			}
		}
		if n := p.ConsoleErrors + p.Exceptions + p.FailedRequests - len(p.Errors); n > 0 {
			fmt.Fprintf(w, "            … and %d more (clapper inspect --json lists the first %d)\n", n, timeline.MaxSummaryErrors)
		}
	}
	if len(p.DialogList) > 0 {
		fmt.Fprintf(w, "\ndialogs:\n")
		for _, e := range p.DialogList {
			fmt.Fprintf(w, "  %7.2fs  %s\n", float64(e.AtMs)/1000, pageEventLine(e.PageEvent))
		}
	}
	fmt.Fprintf(w, "\npage: %d console messages (%d errors), %d uncaught errors, %d requests (%d failed)", p.Console, p.ConsoleErrors, p.Exceptions, p.Requests, p.FailedRequests)
	if p.Dialogs > 0 {
		fmt.Fprintf(w, ", %d dialog%s", p.Dialogs, Plural(p.Dialogs))
	}
	if p.Dropped > 0 {
		kinds := make([]string, 0, len(p.DroppedByKind))
		for _, k := range slices.Sorted(maps.Keys(p.DroppedByKind)) {
			kinds = append(kinds, fmt.Sprintf("%d %s", p.DroppedByKind[k], k))
		}
		by := ""
		if len(kinds) > 0 {
			by = ": " + strings.Join(kinds, ", ")
		}
		fmt.Fprintf(w, "; %d more events not kept (the log is bounded, errors first)%s", p.Dropped, by)
	}
	fmt.Fprintln(w)
}

// pageEventLine is one page event in words.
func pageEventLine(e timeline.PageEvent) string {
	one := func(s string) string { return strings.ReplaceAll(s, "\n", " ⏎ ") }
	switch e.Kind {
	case timeline.PageRequest:
		what := fmt.Sprint(e.Status)
		if e.Failed != "" {
			what = "failed: " + e.Failed
		}
		return fmt.Sprintf("request %s %s → %s", e.Method, one(e.URL), what)
	case timeline.PageException:
		return "uncaught " + one(e.Text)
	case timeline.PageDialog:
		return fmt.Sprintf("%s %q %s", e.Dialog, one(e.Text), e.Answer)
	}
	return fmt.Sprintf("console.%s %s", e.Level, one(e.Text))
}
