# clapper — build, demo, tests, benchmarks.
GO ?= $(shell command -v go 2>/dev/null || echo /usr/local/go/bin/go)
BIN := bin/clapper
# Tests run go themselves (building the CLI, listing imports): keep it on PATH.
export PATH := $(dir $(GO)):$(PATH)

# clapper --version reads Go's build info. Go records no VCS data in a git
# worktree or with -buildvcs=false, so the same facts are passed here; the
# build info wins where it has them.
VCS_LDFLAGS := $(shell TZ=UTC git log -1 --format='-X main.vcsRevision=%H -X main.vcsTime=%cd' --date=format-local:%Y-%m-%dT%H:%M:%SZ 2>/dev/null) \
	$(if $(shell git status --porcelain 2>/dev/null),-X main.vcsModified=true)

.PHONY: setup build demo test bench clean schema

# setup installs what clapper needs on a Debian machine (Chromium, ffmpeg)
# and fetches the Go modules.
setup:
	@command -v chromium >/dev/null && command -v ffmpeg >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium ffmpeg; \
	  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium ffmpeg; fi; }
	$(GO) mod download

build:
	$(GO) build -ldflags "$(VCS_LDFLAGS)" -o $(BIN) ./cmd/clapper

# demo runs the quickstart on the sample site clapper serves itself.
# As root, Chromium's sandbox cannot start: the no-sandbox choice is made
# explicitly here.
demo: setup build
	$(BIN) run samples/quickstart.yaml -o out/quickstart $(if $(filter 0,$(shell id -u)),--no-sandbox,)

# test runs every test, the integration tests on real Chromium and ffmpeg
# included. CLAPPER_REQUIRE_INTEGRATION=1 turns a missing binary into a
# failure instead of a skip.
test:
	CLAPPER_REQUIRE_INTEGRATION=1 $(GO) test -count=1 -timeout 20m ./...

bench: build
	$(GO) test -run '^$$' -bench . -benchtime 3x ./compositor/ ./recorder/

clean:
	rm -rf bin out

# schema regenerates clapper.schema.json from the language's tables.
schema: build
	$(BIN) schema > clapper.schema.json
