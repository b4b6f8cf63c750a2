package session

import (
	"context"
	"sync"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
)

// Dialogs. A page's alert, confirm, prompt or beforeunload dialog stops
// the page until it is answered: script, input and, in studio capture,
// virtual time all wait on it. So every dialog is answered as it opens,
// as Playwright does when no handler is set: alert, confirm and prompt
// are dismissed (the script's dialogs: accept accepts them), and a
// beforeunload dialog is accepted, so that a navigation the script asked
// for happens (Playwright dismisses it, which cancels the navigation).
// A dialog step decides the next dialog instead. Each dialog is kept in
// the take's page log with its type, message and answer, on the clock.

// dialogs holds a run's answer for the next dialog, set by a dialog step.
type dialogs struct {
	mu     sync.Mutex
	armed  *scripts.Dialog
	policy string
}

// arm makes a the answer to the next dialog.
func (d *dialogs) arm(a scripts.Dialog) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.armed = &a
}

// take returns the answer to a dialog of type typ that opened now, using
// up an armed one.
func (d *dialogs) take(typ page.DialogType, defaultPrompt string) (accept bool, text string) {
	d.mu.Lock()
	armed := d.armed
	d.armed = nil
	d.mu.Unlock()
	return dialogAnswer(typ, armed, d.policy, defaultPrompt)
}

// dialogAnswer decides how a dialog is answered: as a dialog step said,
// else a beforeunload is accepted, else as the script's dialogs: policy
// says. A prompt accepted with no text given keeps the text the page
// proposed. Pure.
func dialogAnswer(typ page.DialogType, armed *scripts.Dialog, policy, defaultPrompt string) (accept bool, text string) {
	switch {
	case armed != nil:
		accept, text = armed.Accept, armed.Text
	case typ == page.DialogTypeBeforeunload:
		accept = true
	default:
		accept = policy == scripts.DialogsAccept
	}
	if accept && text == "" && typ == page.DialogTypePrompt {
		text = defaultPrompt
	}
	if typ != page.DialogTypePrompt {
		text = ""
	}
	return accept, text
}

// answerWords is how an answer is recorded. Pure.
func answerWords(accept bool, text string) string {
	switch {
	case !accept:
		return "dismissed"
	case text != "":
		return "accepted: " + text
	}
	return "accepted"
}

// dialogListener answers the dialogs of the tab of tabCtx, named tab, and
// records each. It runs on the tab's read loop, so the answer is sent
// from a goroutine of its own, bounded by dialogAnswerLimit.
func (r *run) dialogListener(tab string, tabCtx context.Context) func(ev any) {
	return func(ev any) {
		e, ok := ev.(*page.EventJavascriptDialogOpening)
		if !ok {
			return
		}
		accept, text := r.dialogs.take(e.Type, e.DefaultPrompt)
		r.pages.dialog(tab, string(e.Type), e.Message, answerWords(accept, text))
		r.logf("tab %s: a %s dialog (%q) %s", tab, e.Type, r.s.Mask(e.Message), r.s.Mask(answerWords(accept, text)))
		go func() { // ends with its call (bounded: dialogAnswerLimit)
			ctx, cancel := context.WithTimeout(tabCtx, dialogAnswerLimit)
			defer cancel()
			_, err := chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: accept, PromptText: text})
			if err != nil && tabCtx.Err() == nil {
				r.logf("tab %s: answering a %s dialog: %v", tab, e.Type, err)
			}
		}()
	}
}

// dialogAnswerLimit bounds answering a dialog.
const dialogAnswerLimit = 5 * time.Second

// dialogStep arms the answer to the next dialog.
func (r *run) dialogStep(a scripts.Dialog, rec *timeline.Step) error {
	rec.Target = "dismiss"
	if a.Accept {
		rec.Target = "accept"
	}
	r.dialogs.arm(a)
	return nil
}

// dialog keeps a dialog and its answer in the page log.
func (p *pageLog) dialog(tab, typ, message, answer string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.full(timeline.PageDialog, true) {
		return
	}
	p.add(timeline.PageEvent{Kind: timeline.PageDialog, Tab: tab, Document: p.docs[tab], At: p.now(), Dialog: typ, Text: p.text(message), Answer: p.text(answer)})
}
