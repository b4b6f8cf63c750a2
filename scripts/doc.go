// Package scripts owns clapper's YAML run-script language: it decodes a
// script into typed steps (durations, enums, targets), resolves variables and
// includes, masks secrets, and reports every error at once as file:line:col
// with the source line and a caret, before anything launches. It also
// publishes the language's JSON Schema and its reference in Markdown.
//
// It does not touch a browser, and imports no other clapper package.
//
// # Entry points
//
// Load reads one script (and the files its run steps include) and returns
// a *Script or Errors, every problem sorted by file, line and column.
// There is no separate Validate: `clapper validate FILE...` calls Load for
// each file and reports the Errors of each. Schema returns the JSON Schema;
// Reference, the language reference (docs/reference.md), with the example
// of each step from examples.go.
// Once the served folder listens, (*Script).BindServe fills ${serve.url};
// (*Script).Mask hides secret values in anything about to be shown.
//
// # The language
//
// A script is one YAML map: name, browser, serve, env, secrets, output,
// defaults and steps (the only required key). Each item of steps is a map
// with one step key (goto, click, type...) and any of the common fields
// label, timeout, optional, hidden, tab and retries; a step that takes no
// value may be written bare (`- reload`). Many steps have a short form
// (`click: "#go"`, `press: Enter`, `pause: 1.5s`, `wait: "#ready"`,
// `chapter: Title`, `hold: stage`, `zoom: reset`, `cursor: hide`,
// `tab: NAME` to switch); fill, type and the others need a map. The tables
// in spec.go and table.go list every step, field, type, enum and range;
// Schema is generated from them.
//
// A target is a CSS selector string, or a map selecting by exactly one of
// css, xpath, text, role (with optional name), label, placeholder and testid,
// with an optional nth. click, hover, check and uncheck also take a target's
// keys inline: `click: {role: button, name: Save, button: right}`.
//
// run and repeat never reach Script.Steps: run loads another file's steps
// (its header is ignored except env: and secrets:) and repeat copies its
// steps, both in place at load time, keeping each step's Pos in the file
// that wrote it. Their own common fields apply to the steps they expand to:
// tab, timeout and retries as defaults, optional and hidden to all.
//
// Tabs are checked in the order the expanded steps run: the tab "main"
// exists from the start; `tab: {open: NAME}` opens and switches to a tab;
// a step's tab:, a switch, close, hold or resume must name a tab that is
// open at that point, and resume must follow a hold of the same tab.
//
// Variables, their precedence and escaping are described in vars.go. A
// secret's value is masked (•••) in labels, captions, chapters, Script.Env
// and error messages; Type, Fill and Eval holding one are marked Secret.
package scripts
