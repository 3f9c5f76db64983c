package e2e_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/app/feeds/feedtest"
)

// TestBriefFolderCLI: `brief add --folder` and `brief edit` limit a briefing to a folder's
// sources, to chosen sources or to none; edit changes only what it is given.
func TestBriefFolderCLI(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, dir, "source", "add", "https://a.example/feed", "--type", "rss", "--folder", "Tech")
	mustRun(t, dir, "source", "add", "https://b.example/feed", "--type", "rss")
	if out := mustRun(t, dir, "brief", "add", "Tech news", "--folder", "tech", "--time", "06:45"); !strings.Contains(out, "Added briefing 1: Tech news (the sources of folder Tech)") {
		t.Fatalf("add --folder said %q", out)
	}
	if out := mustRun(t, dir, "brief", "list"); !strings.Contains(out, "the sources of folder Tech") {
		t.Fatalf("list does not say what the briefing covers:\n%s", out)
	}
	var bs []struct {
		Name       string  `json:"name"`
		Time       string  `json:"time"`
		FolderID   *int64  `json:"folderId"`
		FolderName string  `json:"folderName"`
		SourceIDs  []int64 `json:"sourceIds"`
	}
	list := func() {
		t.Helper()
		bs = nil
		if err := json.Unmarshal([]byte(mustRun(t, dir, "brief", "list", "--json")), &bs); err != nil || len(bs) != 1 {
			t.Fatalf("brief list --json: %v %+v", err, bs)
		}
	}
	list()
	if bs[0].FolderID == nil || bs[0].FolderName != "Tech" {
		t.Fatalf("stored %+v, want the folder Tech", bs[0])
	}
	if out := mustRun(t, dir, "brief", "edit", "1", "--source", "2"); !strings.Contains(out, "(1 chosen source)") {
		t.Fatalf("edit --source said %q", out)
	}
	list()
	if bs[0].FolderID != nil || len(bs[0].SourceIDs) != 1 || bs[0].Time != "06:45" || bs[0].Name != "Tech news" {
		t.Fatalf("after edit --source: %+v (the time and name must be kept)", bs[0])
	}
	mustRun(t, dir, "brief", "edit", "1", "--folder", "Tech", "--name", "Tech")
	list()
	if bs[0].FolderName != "Tech" || len(bs[0].SourceIDs) != 0 || bs[0].Name != "Tech" {
		t.Fatalf("after edit --folder: %+v", bs[0])
	}
	if out := mustRun(t, dir, "brief", "edit", "1", "--all-sources"); !strings.Contains(out, "(every source)") {
		t.Fatalf("edit --all-sources said %q", out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"brief", "add", "X", "--folder", "Nope"}, `No folder is called "Nope"`},
		{[]string{"brief", "add", "X", "--folder", "Tech", "--source", "2"}, "a folder or chosen sources, not both"},
		{[]string{"brief", "edit", "1", "--folder", "Tech", "--source", "2"}, "give one of --folder, --source and --all-sources"},
		{[]string{"brief", "edit", "9", "--time", "08:00"}, "Briefing 9 not found"},
		{[]string{"brief", "edit", "1", "--time", "8am"}, "HH:MM"},
	} {
		if _, errOut, err := run(t, dir, tc.args...); err == nil || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: err %v, stderr %q; want %q", tc.args, err, errOut, tc.want)
		}
	}
}

// TestBriefListLatest: `brief list` marks an empty run and names the latest report with
// stories, which an empty run does not hide (--json: latestReportId).
func TestBriefListLatest(t *testing.T) {
	farm := feedtest.NewFarm(1, 3)
	defer farm.Close()
	dir := t.TempDir()
	mustRun(t, dir, "source", "add", farm.URL(0), "--type", "rss")
	mustRun(t, dir, "fetch")
	mustRun(t, dir, "source", "add", "https://quiet.example/feed", "--type", "rss", "--folder", "Quiet") // never fetched: no items
	mustRun(t, dir, "brief", "add", "Morning", "--items", "2")
	mustRun(t, dir, "brief", "run", "1")
	mustRun(t, dir, "brief", "edit", "1", "--folder", "Quiet")
	if md := mustRun(t, dir, "brief", "run", "1"); !strings.Contains(md, "Nothing new") {
		t.Fatalf("the quiet folder's run printed:\n%s", md)
	}
	if out := mustRun(t, dir, "brief", "list"); !strings.Contains(out, "#2 ") || !strings.Contains(out, "nothing new; latest with stories #1 ") {
		t.Fatalf("list:\n%s", out)
	}
	var bs []struct {
		Last   int64 `json:"lastReportId"`
		Latest int64 `json:"latestReportId"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, dir, "brief", "list", "--json")), &bs); err != nil || len(bs) != 1 || bs[0].Last != 2 || bs[0].Latest != 1 {
		t.Fatalf("list --json: %v %+v", err, bs)
	}
}
