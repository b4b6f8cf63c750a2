package main

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// docs/commands.md is the commands' own help, in the same words: what
// clapper --help and each COMMAND --help print (usage, description,
// example, flags). commandsDoc writes it from the app; the test fails when
// the committed page differs (go test ./cmd/clapper -run TestCommandsDoc
// -update rewrites it).

const commandsIntro = `# Commands

<!-- Generated from the commands' help text by the tests of cmd/clapper: do not edit, run
go test ./cmd/clapper -run TestCommandsDoc -update. -->

Every command prints the same with ` + "`--help`" + `. The guides show them at work:
[writing scripts](scripts.md), [filming](filming.md), [takes as evidence](takes.md),
[many runs, one browser](shared-browser.md), [stage and scout](stage-and-scout.md),
[troubleshooting](troubleshooting.md).

` + "`clapper --version`" + ` names the release, or the revision and commit date it was
built from (` + "`-dirty`" + ` when the tree was modified); the take records it. When
Chromium or ffmpeg is missing, or Chromium's sandbox cannot start as root,
` + "`run`" + ` stops before launching anything with the same one-line fix ` + "`doctor`" + `
gives. Flags may come before or after the positional arguments. Exit codes:
0 all steps passed, 1 a step or expectation failed (the take and the video
up to that point are still written, and the failing step is named with its
line), 2 usage or script error (` + "`validate`" + ` too, and a run whose output
folder another run is writing), 129 stopped by SIGHUP (its terminal closed),
130 by SIGINT (Ctrl-C), 143 by SIGTERM; each keeps the take.

`

// helpCommand is one command as the page shows it.
type helpCommand struct {
	path string // "clapper browser start"
	cmd  *cli.Command
}

func allCommands(path string, cs []*cli.Command) []helpCommand {
	var out []helpCommand
	for _, c := range cs {
		if c.Hidden || c.Name == "help" {
			continue
		}
		p := path + " " + c.Name
		out = append(out, helpCommand{p, c})
		out = append(out, allCommands(p, c.Subcommands)...)
	}
	return out
}

// splitExample cuts a description into its prose and its example.
func splitExample(desc string) (prose, example string) {
	i := strings.LastIndex(desc, "Example: ")
	if i < 0 {
		return desc, ""
	}
	return strings.TrimSpace(desc[:i]), strings.TrimSpace(desc[i+len("Example: "):])
}

func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;").Replace(s)
}

func anchor(path string) string { return strings.ReplaceAll(path, " ", "-") }

func commandsDoc(app *cli.App) string {
	var b strings.Builder
	b.WriteString(commandsIntro)
	prose, ex := splitExample(app.Description)
	fmt.Fprintf(&b, "## clapper\n\n%s.\n\n```\nclapper COMMAND [options]\n```\n\n%s\n\n```sh\n%s\n```\n\n",
		app.Usage, mdCell(strings.Join(strings.Fields(prose), " ")), ex)
	cmds := allCommands("clapper", app.Commands)
	b.WriteString("| command | does |\n|---|---|\n")
	for _, c := range cmds {
		syn := c.path
		if c.cmd.ArgsUsage != "" {
			syn += " " + c.cmd.ArgsUsage
		}
		fmt.Fprintf(&b, "| `%s` | %s ([more](#%s)) |\n", syn, mdCell(c.cmd.Usage), anchor(c.path))
	}
	b.WriteString("\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "## %s\n\n%s.\n\n", c.path, mdCell(c.cmd.Usage))
		syn := c.path + " [options]"
		if len(c.cmd.Subcommands) > 0 {
			syn = c.path + " COMMAND [options]"
		}
		if c.cmd.ArgsUsage != "" {
			syn += " " + c.cmd.ArgsUsage
		}
		fmt.Fprintf(&b, "```\n%s\n```\n\n", syn)
		prose, ex := splitExample(c.cmd.Description)
		if prose != "" {
			fmt.Fprintf(&b, "%s\n\n", mdCell(strings.Join(strings.Fields(prose), " ")))
		}
		if ex != "" {
			fmt.Fprintf(&b, "```sh\n%s\n```\n\n", ex)
		}
		var rows []string
		for _, f := range c.cmd.Flags {
			name, usage, _ := strings.Cut(f.String(), "\t")
			rows = append(rows, fmt.Sprintf("| `%s` | %s |", name, mdCell(usage)))
		}
		if len(rows) > 0 {
			fmt.Fprintf(&b, "| option | what |\n|---|---|\n%s\n\n", strings.Join(rows, "\n"))
		}
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// Every command says what it does and shows an example in its help, and
// docs/commands.md is that help, word for word.
func TestCommandsDoc(t *testing.T) {
	app := newApp()
	if _, ex := splitExample(app.Description); !strings.HasPrefix(ex, "clapper ") {
		t.Errorf("clapper --help shows no example: %q", app.Description)
	}
	for _, c := range allCommands("clapper", app.Commands) {
		if _, ex := splitExample(c.cmd.Description); !strings.HasPrefix(ex, c.path+" ") && !strings.HasPrefix(ex, c.path) {
			t.Errorf("%s --help shows no example of itself (Example: %s ...): %q", c.path, c.path, c.cmd.Description)
		}
	}
	want := commandsDoc(app)
	if *update {
		if err := os.WriteFile("../../docs/commands.md", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile("../../docs/commands.md")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Error("docs/commands.md differs from the commands' help: run go test ./cmd/clapper -run TestCommandsDoc -update")
	}
}
