# Morning Deck. `make run` starts the app; `make test` installs what the tests need and runs them all.
SHELL := /bin/bash
GO ?= go
export CGO_ENABLED := 0

.PHONY: run build test deps lint generate check-generate bench release-snapshot screenshots

run:
	$(GO) run . 

build:
	$(GO) build -o morningdeck .

# Installs headless Chromium for the browser tests when the machine lacks it (Debian/Ubuntu, as root or with sudo).
deps:
	@if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1 && ! command -v google-chrome >/dev/null 2>&1; then \
		echo "Installing chromium for the browser tests..."; \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >/dev/null; \
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

test: deps check-generate lint
	$(GO) build -o /dev/null .
	$(GO) test -count=1 -timeout 20m ./...

bench:
	$(GO) test ./queue -run '^$$' -bench . -benchtime 5x

release-snapshot:
	$(GO) run github.com/goreleaser/goreleaser/v2@latest release --snapshot --clean

screenshots:
	$(GO) run ./scripts/screenshots
