# Morning Deck. `make run` starts the app; `make test` installs what the tests need and runs them all.
SHELL := /bin/bash
GO ?= go
export CGO_ENABLED := 0

.PHONY: run build test deps lint generate check-generate bench fuzz drill load release-snapshot screenshots

run:
	$(GO) run . 

build:
	$(GO) build -o morningdeck .

# The goreleaser release builds and their test use (see goreleaser.yaml).
GORELEASER_VERSION := v2.15.1

# Installs what the tests need when the machine lacks it: headless Chromium for the browser tests,
# qemu-user-static for the Raspberry Pi (ARM) tests, newsboat with tmux for the Reader API test, and
# PostgreSQL's server for the postgres package's tests (postgres/pgtest runs initdb and pg_ctl, which
# Debian keeps in /usr/lib/postgresql/<version>/bin; no server is left running) via apt-get (Debian/Ubuntu, as root or with sudo), and goreleaser $(GORELEASER_VERSION) for the release test via go install (a few minutes the first time).
deps:
	@pkgs=; \
	if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1 && ! command -v google-chrome >/dev/null 2>&1; then \
		pkgs="$$pkgs chromium"; \
	fi; \
	if ! command -v qemu-aarch64-static >/dev/null 2>&1 || ! command -v qemu-arm-static >/dev/null 2>&1; then \
		pkgs="$$pkgs qemu-user-static"; \
	fi; \
	if ! command -v newsboat >/dev/null 2>&1; then \
		pkgs="$$pkgs newsboat"; \
	fi; \
	if ! command -v tmux >/dev/null 2>&1; then \
		pkgs="$$pkgs tmux"; \
	fi; \
	if ! command -v initdb >/dev/null 2>&1 && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then \
		pkgs="$$pkgs postgresql"; \
	fi; \
	if [ -n "$$pkgs" ]; then \
		echo "Installing$$pkgs for the tests..."; \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		echo "(apt-get waits up to 10 minutes for the package manager's lock if another install holds it)"; \
		$$SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq && \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq $$pkgs >/dev/null; \
	fi
	@bindir=$$($(GO) env GOBIN); bindir=$${bindir:-$$($(GO) env GOPATH | cut -d: -f1)/bin}; \
	gr=$$bindir/goreleaser; [ -x "$$gr" ] || gr=$$(command -v goreleaser || true); \
	if [ -z "$$gr" ] || [ "$$("$$gr" --version 2>/dev/null | awk '$$1 == "GitVersion:" {print $$2}')" != "$(GORELEASER_VERSION)" ]; then \
		echo "Installing goreleaser $(GORELEASER_VERSION) into $$bindir for the release test..."; \
		$(GO) install github.com/goreleaser/goreleaser/v2@$(GORELEASER_VERSION); \
	fi

generate:
	$(GO) tool templ generate

# The *_templ.go files must be exactly what `templ generate` makes from the .templ files.
check-generate:
	@before=$$(cat $$(git ls-files -co --exclude-standard '*_templ.go') | sha256sum); \
	$(GO) tool templ generate >/dev/null 2>&1; \
	after=$$(cat $$(git ls-files -co --exclude-standard '*_templ.go') | sha256sum); \
	if [ "$$before" != "$$after" ]; then echo "templ generate changed files: commit the generated code"; git status --porcelain -- '*_templ.go'; exit 1; fi

lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	$(GO) vet ./...

# MORNINGDECK_E2E=all: the end-to-end tests (e2e/) fail, not skip, when a tool they drive is
# missing — deps has installed them all.
test: deps check-generate lint
	$(GO) build -o /dev/null .
	MORNINGDECK_E2E=all $(GO) test -count=1 -timeout 45m ./...

# Every fuzz target (feed parsing, page links, sanitizing, OPML import, the API's JSON, schedules, interests)
# for FUZZTIME each. Never part of `make test`: a timed fuzz run is not deterministic. `go test`
# (and so `make test`) runs every target's seed corpus (testdata/fuzz/ and f.Add) as ordinary
# tests; a finding here becomes a seed there, with its fix.

FUZZTIME ?= 60s
fuzz:
	bash scripts/fuzz.sh $(FUZZTIME)

# The crash drill's long form (make test runs a short one) and the load test (see RELIABILITY.md).
drill:
	MORNINGDECK_DRILL_CYCLES=20 $(GO) test -count=1 -run '^TestCrashDrill$$' -timeout 40m -v ./e2e

load:
	MORNINGDECK_LOAD=1 $(GO) test -count=1 -run '^TestLoad$$' -timeout 60m -v ./e2e

bench:
	$(GO) test ./queue -run '^$$' -bench . -benchtime 5x

# Builds every release artifact into dist/ (archives for 6 targets, .deb/.rpm, checksums, the
# Homebrew cask) without publishing anything.
release-snapshot:
	$(GO) run github.com/goreleaser/goreleaser/v2@$(GORELEASER_VERSION) release --snapshot --clean --skip=publish

screenshots:
	$(GO) run ./scripts/screenshots
