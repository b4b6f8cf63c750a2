package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/clapper-dev/clapper/film"
	"github.com/clapper-dev/clapper/timeline"
)

func inspectCommand() *cli.Command {
	return &cli.Command{
		Name:  "inspect",
		Usage: "summarise a take: steps, frame accounting, boundaries, holds, receipts",
		Description: "Prints a summary of a take (folder or .clap): page errors first, then steps, frame accounting, documents, receipts,\n" +
			"holds and cleanup. A take with a manifest is verified first, and refused when it fails.\n" +
			"Example: clapper inspect out/quickstart/take",
		ArgsUsage: "TAKE",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the summary as JSON"},
			&cli.BoolFlag{Name: "check", Usage: "also check every frame file against the index"},
			&cli.BoolFlag{Name: "verify", Usage: "also verify the take in full, as clapper verify does"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErr("inspect takes one take (folder or .clap), e.g. clapper inspect out/quickstart/take")
			}
			tk, done, err := film.OpenTakeArg(c.Context, c.Args().First())
			if err != nil {
				return err
			}
			defer done()
			if c.Bool("verify") {
				if err := timeline.Verify(tk.Dir).Err(); err != nil {
					return &exitError{Code: exitFailed, Err: err}
				}
			}
			if c.Bool("check") {
				if err := tk.Validate(); err != nil {
					return fmt.Errorf("take check failed: %w", err)
				}
			}
			s, err := tk.Summary()
			if err != nil {
				return err
			}
			if c.Bool("json") {
				enc := json.NewEncoder(os.Stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(s)
			}
			// The summary is text from a page and a take: escaped visibly.
			printSummary(printableWriter{os.Stdout}, s)
			return nil
		},
	}
}

func printSummary(w io.Writer, s timeline.Summary) {
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
	fmt.Fprintf(w, "\nsteps:\n")
	for _, st := range s.Steps {
		label := ""
		if st.Label != "" {
			label = " · " + st.Label
		}
		fmt.Fprintf(w, "  %3d  line %-4d %-10s %-12s %7.2fs → %7.2fs%s\n", st.Index+1, st.Line, st.Kind, st.Outcome, float64(st.StartMs)/1000, float64(st.EndMs)/1000, label)
		if st.Error != "" {
			fmt.Fprintf(w, "       %s\n", strings.ReplaceAll(st.Error, "\n", "\n       "))
		}
	}
	fmt.Fprintf(w, "\ndocuments:\n")
	for _, b := range s.Boundaries {
		u := "(address longer than 8192 characters)"
		if b.URL != nil {
			u = *b.URL
		}
		fmt.Fprintf(w, "  %2d  at %7.2fs after frame %d  %s\n", b.Document, float64(b.AtMs)/1000, b.LastSeq, u)
	}
	fmt.Fprintf(w, "\ninput receipts: %d", s.Receipts)
	for _, k := range slices.Sorted(maps.Keys(s.ByKind)) {
		fmt.Fprintf(w, "  %s %d", k, s.ByKind[k])
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
