# clapper — build, demo, tests, benchmarks.
GO ?= $(shell command -v go 2>/dev/null || echo /usr/local/go/bin/go)
BIN := bin/clapper
# Tests run go themselves (building the CLI, listing imports): keep it on PATH.
export PATH := $(dir $(GO)):$(PATH)

# As root, Chromium's sandbox cannot start: the targets that launch it
# make the no-sandbox choice explicitly, and only then.
NO_SANDBOX := $(if $(filter 0,$(shell id -u)),--no-sandbox,)

# clapper --version reads Go's build info. Go records no VCS data in a git
# worktree or with -buildvcs=false, so the same facts are passed here; the
# build info wins where it has them.
VCS_LDFLAGS := $(shell TZ=UTC git log -1 --format='-X main.vcsRevision=%H -X main.vcsTime=%cd' --date=format-local:%Y-%m-%dT%H:%M:%SZ 2>/dev/null) \
	$(if $(shell git status --porcelain 2>/dev/null),-X main.vcsModified=true)

.PHONY: setup tune build doctor demo test bench versus-playwright versus-playwright-locators clean schema reference

# setup installs what clapper needs on a Debian machine (Chromium and its
# headless shell, ffmpeg, fonts: the list is .ci/debian-packages) and
# fetches the Go modules.
setup:
	.ci/install-packages
	$(GO) mod download

# tune turns on transparent huge pages until the next reboot (as root),
# for a machine where a page fault is slow: clapper doctor's "page faults"
# line says when. It prints how to undo it.
tune:
	.ci/tune-memory

build:
	$(GO) build -ldflags "$(VCS_LDFLAGS)" -o $(BIN) ./cmd/clapper

# doctor checks this machine: browsers, ffmpeg, fonts, sandbox, space.
doctor: build
	$(BIN) doctor $(NO_SANDBOX)

# demo runs the quickstart on the sample site clapper serves itself.
demo: setup build
	$(BIN) run samples/quickstart.yaml -o out/quickstart $(NO_SANDBOX)

# test runs every test, the integration tests on real Chromium and ffmpeg
# included. CLAPPER_REQUIRE_INTEGRATION=1 turns a missing binary into a
# failure instead of a skip. go test runs packages side by side in the
# order given: the longest first, so that the short ones fill in
# beside them instead of one long package running alone at the end.
test:
	CLAPPER_REQUIRE_INTEGRATION=1 $(GO) test -count=1 -timeout 20m $(TEST_FIRST) ./...

TEST_FIRST := ./session ./cmd/clapper ./compositor ./suite ./recorder

bench: build
	$(GO) test -run '^$$' -bench . -benchtime 3x ./compositor/ ./recorder/

# versus-playwright films the bench scenario with clapper (live and
# studio) and as a Playwright script recorded with recordVideo at the same
# frame rate, runs taking turns, and prints the medians of 3 side by side.
# It installs playwright-core from npm into .bench/playwright (no browser
# download: Playwright runs the machine's Chromium and ffmpeg).
# The version the README's figures were measured with (bench.PlaywrightVersion).
PLAYWRIGHT_VERSION ?= 1.65.2
versus-playwright: build
	test -d .bench/playwright/node_modules/playwright-core || npm install --no-audit --no-fund --prefix .bench/playwright playwright-core@$(PLAYWRIGHT_VERSION)
	$(BIN) bench run --capture live,studio --settled-by frame --runs 3 --playwright .bench/playwright $(NO_SANDBOX)

# versus-playwright-locators compares the page helpers with Playwright's
# locators (roles, names, text, labels, attributes, visibility) on
# clapper's test pages and sample site, and prints each difference. The
# pages whose text animates are left out: their words change between two
# looks.
LOCATOR_PAGES := $(filter-out %/live.html %/hold.html %/busy.html %/counter.html,$(wildcard session/testdata/site/*.html session/testdata/site/pw/*.html samples/site/*.html))
versus-playwright-locators:
	test -d .bench/playwright/node_modules/playwright-core || npm install --no-audit --no-fund --prefix .bench/playwright playwright-core@$(PLAYWRIGHT_VERSION)
	node tools/versus-playwright-locators.cjs .bench/playwright $$(command -v chromium) $(LOCATOR_PAGES)

clean:
	rm -rf bin out

# schema regenerates clapper.schema.json from the language's tables.
schema: build
	$(BIN) schema > clapper.schema.json

# reference regenerates docs/reference.md, the language reference, from the
# same tables.
reference: build
	$(BIN) schema --markdown > docs/reference.md
