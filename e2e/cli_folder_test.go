package e2e_test

import (
	"strings"
	"testing"
)

func TestFolderCLI(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, dir, "source", "add", "https://a.example/feed", "--type", "rss", "--folder", "Tech")
	mustRun(t, dir, "source", "add", "https://b.example/feed", "--type", "rss")
	if out := mustRun(t, dir, "source", "move", "2", "tech"); !strings.Contains(out, "Moved source 2") || !strings.Contains(out, "Tech") {
		t.Fatalf("move said %q", out)
	}
	if out := mustRun(t, dir, "folder", "list"); !strings.Contains(out, "Tech") || !strings.Contains(out, "2") {
		t.Fatalf("list said %q", out)
	}
	// Items of a folder are marked read by its name (no items yet: the marking says 0).
	if out := mustRun(t, dir, "items", "read", "--folder", "tech"); !strings.Contains(out, "Marked 0 items of the folder Tech as read.") {
		t.Fatalf("items read --folder said %q", out)
	}
	for _, args := range [][]string{{"items", "read"}, {"items", "read", "--all", "--folder", "Tech"}} {
		if _, errOut, err := run(t, dir, args...); err == nil || !strings.Contains(errOut, "say which items") {
			t.Errorf("%v: err %v, stderr %q; want it to ask which items", args, err, errOut)
		}
	}
	if out := mustRun(t, dir, "folder", "rename", "TECH", "Science"); !strings.Contains(out, "Renamed folder Tech to Science") {
		t.Fatalf("rename said %q", out)
	}
	if out := mustRun(t, dir, "source", "list"); !strings.Contains(out, "Science") {
		t.Fatalf("source list shows no folder:\n%s", out)
	}
	if out := mustRun(t, dir, "folder", "list", "--json"); !strings.Contains(out, `"name": "Science"`) || !strings.Contains(out, `"sourceCount": 2`) {
		t.Fatalf("list --json said %q", out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"folder", "rm", "Nope"}, `No folder is called "Nope"`},
		{[]string{"folder", "rename", "Science", "  "}, "needs a name"},
		{[]string{"source", "move", "9", "X"}, "not found"},
		{[]string{"source", "add", "https://c.example/feed", "--type", "rss", "--folder", strings.Repeat("x", 101)}, "at most 100"},
	} {
		if _, errOut, err := run(t, dir, tc.args...); err == nil || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: err %v, stderr %q; want %q", tc.args, err, errOut, tc.want)
		}
	}
	if out := mustRun(t, dir, "folder", "rm", "science"); !strings.Contains(out, "its 2 source(s) are in no folder") {
		t.Fatalf("rm said %q", out)
	}
	if out := mustRun(t, dir, "source", "list", "--json"); strings.Contains(out, "Science") || strings.Count(out, `"folder": ""`) != 2 {
		t.Fatalf("after rm:\n%s", out)
	}
}
