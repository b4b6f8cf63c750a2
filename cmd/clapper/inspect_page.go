package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/clapper-dev/clapper/film"
	"github.com/clapper-dev/clapper/timeline"
)

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
		fmt.Fprintf(w, ", %d dialog%s", p.Dialogs, film.Plural(p.Dialogs))
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
