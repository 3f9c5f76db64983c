package e2e_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestBinaryKeepsDeadCodeElimination: the binary people run does not link reflect's
// Value.Method or Value.MethodByName. Once either is reachable (executing a text/template or an
// html/template, client_golang's protobuf formatting), the linker can no longer drop the
// exported methods nothing calls, in any package: the binary grew by 7.6 MB and the first
// ingestion's peak resident memory by about 3.5 MB (BENCHMARKS.md, session 22). A dependency
// or a change that brings them back fails here, with what reaches them in `go build
// -ldflags=-dumpdep` to look for.
func TestBinaryKeepsDeadCodeElimination(t *testing.T) {
	out, err := exec.Command("go", "tool", "nm", binary).Output()
	if err != nil {
		t.Fatalf("go tool nm: %v", err)
	}
	syms := 0
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		syms++
		switch f[len(f)-1] {
		case "reflect.Value.MethodByName", "reflect.Value.Method":
			t.Errorf("the binary links %s: find what reaches it with `go build -ldflags=-dumpdep . 2>&1 | grep -- '-> %s$'`", f[len(f)-1], f[len(f)-1])
		}
	}
	if syms < 1000 {
		t.Fatalf("go tool nm listed %d symbols: the check saw nothing", syms)
	}
}
