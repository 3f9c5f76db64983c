// Package e2e holds the end-to-end tests: they build the morningdeck binary and drive it as a
// person or another program would — the CLI, the web app in headless Chromium, email through a
// real SMTP server, the Reader API through newsboat, kill -9 crash drills, the load test, the
// Raspberry Pi builds under qemu and the goreleaser release.
//
// `make test` installs the outside tools these tests need and sets MORNINGDECK_E2E=all, so that
// a missing tool fails; a plain `go test ./...` skips the tests whose tool is missing and says
// what to install. No other package's tests need anything but Go.
package e2e
