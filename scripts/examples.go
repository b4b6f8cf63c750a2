package scripts

// stepExamples holds one example per step kind, as the items of a steps:
// list, for the language reference (Reference). Each one loads as the
// steps of a script whose serve: folder is the samples' site (samples/site)
// and whose folder holds samples/parts: the tests load every example so,
// and fail when a step of the table has none.
var stepExamples = map[string]string{
	"goto":    "- goto: ${serve.url}/index.html\n- goto: https://example.com/pricing\n",
	"back":    "- goto: ${serve.url}/index.html\n- goto: ${serve.url}/pricing.html\n- back\n",
	"forward": "- goto: ${serve.url}/index.html\n- goto: ${serve.url}/pricing.html\n- back\n- forward\n",
	"reload":  "- reload\n",
	"click": `- click: "#start"
- click: {role: button, name: Save}
- click: {text: Delete, button: right}
- click: {css: "#row-3", count: 2, modifiers: [Shift]}
- click: {x: 100, y: 200}          # a point of the viewport
`,
	"hover": `- hover: {text: Pricing}
`,
	"move": `- move: "#menu"
- move: {to: {x: 640, y: 360}}
`,
	"drag": `- drag: {from: "#card-1", to: "#done"}
- drag: {from: ".knob", by: {x: 120, y: 0}}   # a slider
`,
	"type": `- type: {into: "#email", text: ada@example.com}
- type: {text: " and more", delay: 120ms}   # into the focused element
`,
	"fill": `- fill: {into: {label: Email}, value: ada@example.com}
- fill: {into: "#notes", value: ""}         # clear a field
`,
	"press": `- press: Enter
- press: Control+A
- press: {key: Tab, into: "#email"}
`,
	"select": `- select: {into: "#plan", label: Team}
- select: {into: "#tags", value: [red, blue]}   # a <select multiple>
- select: {target: {label: Country}, index: 2}
`,
	"keydown": `- keydown: Shift
- click: "#item-1"
- click: "#item-3"
- keyup: Shift
`,
	"keyup": `- keydown: Shift
- click: "#item-3"
- keyup: Shift
`,
	"check": `- check: "#terms"
- check: {role: switch, name: Dark mode}
`,
	"uncheck": `- uncheck: {label: Send me news}
`,
	"scroll": `- scroll: {by: 600}
- scroll: {to: bottom, duration: 1s}
- scroll: {to: "#faq"}
- scroll: {by: {x: 0, y: 300}, in: ".sidebar"}
`,
	"upload": `- upload: {into: "input[type=file]", files: [site/style.css]}
`,
	"wait": `- wait: "#ready"                               # an element is visible
- wait: {selector: "#spinner", state: hidden}
- wait: {text: Welcome}
- wait: {url: "*/dashboard"}
- wait: {js: "window.appReady === true"}
- wait: {network_idle: true}
`,
	"pause": `- pause: 1.5s
`,
	"chapter": `- chapter: Sign up
- chapter: {title: Billing, description: Change the plan and pay}
`,
	"caption": `- caption: Everything is saved as you type
- caption: {text: One click to share, duration: 3s}
`,
	"cursor": `- cursor: hide
- cursor: {visible: true, style: pointer}
`,
	"zoom": `- zoom: {target: "#email", scale: 1.8, duration: 600ms}
- zoom: {region: {x: 0, y: 0, w: 640, h: 360}}
- zoom: reset
`,
	"hold": `- hold: stage
- resume: stage
- hold: {tab: stage, max: 30s}                  # resumes itself after 30s
`,
	"film": `- tab: {open: scout, url: "${serve.url}/pricing.html"}
- film: scout                                   # the video shows the scout from here on
- film: stage
`,
	"handoff": `- handoff: {until: {url: "*/dashboard"}, timeout: 10m, message: Sign in as the demo user}
`,
	"resume": `- hold: stage
- pause: 2s
- resume: stage
`,
	"tab": `- tab: {open: docs, url: "${serve.url}/pricing.html"}
- tab: main                                     # switch back
- click: {text: Pricing}                        # one step in another tab
  tab: docs
- tab: {close: docs}
- click: {text: Sign in with Acme}              # the page opens a window
- tab: {popup: signin}                          # the steps go on in it
`,
	"expect": `- expect: {visible: "#welcome"}
- expect: {text: Saved, in: "#status"}
- expect: {value: ada@example.com, target: "#email"}
- expect: {url: "*/done.html"}
- expect: {title: Acme Notes}
- expect: {count: 3, target: {css: li, visible: true}}
- expect: {checked: "#terms"}
- expect: {attribute: {name: aria-expanded, value: "true"}, target: "#menu"}
- expect: {js: "document.querySelectorAll('.error').length === 0"}
`,
	"screenshot": `- screenshot: page.png
- screenshot: {file: form.png, target: "form"}
`,
	"run": `- run: parts/signup.yaml
- run: {file: parts/signup.yaml, env: {EMAIL: grace@example.com}}
`,
	"repeat": `- repeat:
    times: 3
    steps:
      - click: "#next"
      - pause: 500ms
`,
	"dialog": `- dialog: {accept: true, text: Grace}             # the next prompt gets Grace
- click: "#rename"
- dialog: {accept: false}                        # the next confirm is dismissed
`,
	"eval": `- eval: "localStorage.clear()"
- eval: |
    const r = await fetch("/api/reset", {method: "POST"});
    if (!r.ok) throw new Error("reset failed: " + r.status);
`,
}
