package session

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/cdproto/page"

	"github.com/clapper-dev/clapper/internal/testenv"
	"github.com/clapper-dev/clapper/scripts"
	"github.com/clapper-dev/clapper/timeline"
)

// Every dialog type, with and without an armed answer, under each policy.
func TestDialogAnswer(t *testing.T) {
	yes, no := &scripts.Dialog{Accept: true, Text: "Grace"}, &scripts.Dialog{Accept: false}
	types := []page.DialogType{page.DialogTypeAlert, page.DialogTypeConfirm, page.DialogTypePrompt, page.DialogTypeBeforeunload}
	for _, typ := range types {
		for _, policy := range []string{scripts.DialogsDismiss, scripts.DialogsAccept, ""} {
			for _, armed := range []*scripts.Dialog{nil, yes, no} {
				accept, text := dialogAnswer(typ, armed, policy, "Ada")
				wantAccept := policy == scripts.DialogsAccept || typ == page.DialogTypeBeforeunload
				if armed != nil {
					wantAccept = armed.Accept
				}
				wantText := ""
				if typ == page.DialogTypePrompt && wantAccept {
					wantText = "Ada"
					if armed != nil && armed.Text != "" {
						wantText = armed.Text
					}
				}
				if accept != wantAccept || text != wantText {
					t.Errorf("%s, policy %q, armed %+v: %v %q, want %v %q", typ, policy, armed, accept, text, wantAccept, wantText)
				}
			}
		}
	}
	if answerWords(false, "x") != "dismissed" || answerWords(true, "") != "accepted" || answerWords(true, "Grace") != "accepted: Grace" {
		t.Error("answerWords")
	}
}

// dialogSteps films testdata/site/dialogs.html: an alert as it loads,
// confirm and prompt dismissed by default and answered by dialog steps,
// and a beforeunload dialog accepted so the goto happens.
const dialogSteps = `  - goto: ${serve.url}/dialogs.html
  - click: "#confirm"
  - expect: {text: "confirm:false", in: "#out"}
  - dialog: {accept: true}
  - click: "#confirm"
  - expect: {text: "confirm:true", in: "#out"}
  - dialog: {text: Grace}
  - click: "#prompt"
  - expect: {text: "prompt:Grace", in: "#out"}
  - click: "#prompt"
  - expect: {text: "prompt:null", in: "#out"}
  - click: "#guard"
  - expect: {text: guarded, in: "#out"}
  - goto: ${serve.url}/second.html
  - expect: {url: "*/second.html"}
`

// wantDialogs are the dialogs dialogSteps meets, in order.
var wantDialogs = []string{
	"alert Welcome! dismissed",
	"confirm Delete the note? dismissed",
	"confirm Delete the note? accepted",
	"prompt Your name? accepted: Grace",
	"prompt Your name? dismissed",
	"beforeunload  accepted",
}

func checkDialogs(t *testing.T, tl *timeline.Timeline) {
	t.Helper()
	var got []string
	for _, e := range tl.Page.Events {
		if e.Kind == timeline.PageDialog {
			got = append(got, fmt.Sprintf("%s %s %s", e.Dialog, e.Text, e.Answer))
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(wantDialogs) {
		t.Errorf("dialogs recorded:\n%q\nwant\n%q", got, wantDialogs)
	}
}

func TestDialogsLive(t *testing.T) {
	t.Parallel()
	checkDialogs(t, passedTake(t, dialogSteps).Timeline)
}

func TestDialogsStudio(t *testing.T) {
	testenv.Need(t, shellName)
	s := writeScript(t, "name: dialogs\nserve: ./site\nbrowser: {capture: studio}\nsteps:\n"+dialogSteps)
	site := filepath.Join(filepath.Dir(s.File), "site")
	for _, name := range []string{"dialogs.html", "second.html"} {
		b, err := os.ReadFile(filepath.Join("testdata", "site", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(site, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, tk, _ := studioRun(t, s, RunOptions{})
	mustPass(t, res)
	checkDialogs(t, tk.Timeline)
}
