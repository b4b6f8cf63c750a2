package session

import (
	"time"

	"github.com/clapper-dev/clapper/timeline"
)

// countsEvery bounds how often a log that is full journals its growing
// drop count: once a second of take clock, so a page that floods the
// console cannot flood the journal.
const countsEvery = timeline.Time(time.Second)

// journalEvent writes event i as it is now to the take's journal, with
// the counts when they changed. A request is written again, whole, each
// time it changes; at most MaxPageEvents events are ever kept, so the
// journal's page records stay bounded like the log. The event was masked
// and cut when it was made. Called with p.mu held, from a tab's read
// loop: Append only buffers (the journal's own goroutine flushes).
func (p *pageLog) journalEvent(i int) {
	if p.jr == nil {
		return
	}
	p.jr.Append(timeline.JournalPage, timeline.JournalPageEvent{I: i, PageEvent: p.log.Events[i]})
	p.journalCounts(true)
}

// journalCounts writes the dropped and truncated counts when they
// changed: at once with an event (force), else at most once per
// countsEvery. Called with p.mu held.
func (p *pageLog) journalCounts(force bool) {
	c := timeline.PageCounts{Dropped: p.log.Dropped, Truncated: p.log.Truncated}
	if p.jr == nil || c == p.counted {
		return
	}
	now := p.now()
	if !force && p.counted.Dropped > 0 && now-p.countedAt < countsEvery {
		return
	}
	p.jr.Append(timeline.JournalPageCounts, c)
	p.counted, p.countedAt = c, now
}
