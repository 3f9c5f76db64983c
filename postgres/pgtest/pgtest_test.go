package pgtest

import (
	"fmt"
	"strings"
	"testing"
)

// recorder is a testing.TB that notes whether a test was failed or skipped.
type recorder struct {
	testing.TB
	failed, skipped string
}

// stopped ends the recorded test, as testing's Fatal and Skip end a real one.
type stopped struct{}

func (r *recorder) Helper()                   {}
func (r *recorder) Fatal(args ...any)         { r.failed = fmt.Sprint(args...); panic(stopped{}) }
func (r *recorder) Skip(args ...any)          { r.skipped = fmt.Sprint(args...); panic(stopped{}) }
func (r *recorder) Fatalf(f string, a ...any) { r.failed = fmt.Sprintf(f, a...); panic(stopped{}) }

// run runs fn as a test on r.
func (r *recorder) run(fn func(testing.TB)) {
	defer func() {
		if v := recover(); v != nil {
			if _, ok := v.(stopped); !ok {
				panic(v)
			}
		}
	}()
	fn(r)
}

// TestMissingServer: without PostgreSQL's programs a test fails under `make test`
// (MORNINGDECK_E2E=all) and in CI (CI=true), and is skipped, saying what to install, elsewhere.
func TestMissingServer(t *testing.T) {
	for _, tc := range []struct {
		e2e, ci string
		fail    bool
	}{
		{"all", "", true},
		{"", "true", true},
		{"", "", false},
		{"some", "false", false},
	} {
		t.Setenv("MORNINGDECK_E2E", tc.e2e)
		t.Setenv("CI", tc.ci)
		r := &recorder{}
		r.run(func(tb testing.TB) { missing(tb, errNoTools) })
		if tc.fail != (r.failed != "") || tc.fail == (r.skipped != "") {
			t.Errorf("MORNINGDECK_E2E=%q CI=%q: failed %q, skipped %q", tc.e2e, tc.ci, r.failed, r.skipped)
		}
		if msg := r.failed + r.skipped; !strings.Contains(msg, "apt-get install postgresql") {
			t.Errorf("the message does not say what to install: %q", msg)
		}
	}
}
