package e2e_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/app/feeds/feedtest"
)

// runQuietDefault runs the binary as a person would: no MORNINGDECK_LOG_LEVEL, so the
// command's own defaults decide what is logged.
func runQuietDefault(t *testing.T, dataDir string, args ...string) (string, string, error) {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"--data-dir", dataDir}, args...)...)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MORNINGDECK_") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "XDG_CONFIG_HOME="+t.TempDir())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// TestCLIGlobal: the CLI's global behaviour (issue 16): quiet ordinary commands, -v for the
// log, each command's help with its own flags, group commands that fail without a command,
// flag mistakes said as sentences, --json on every list.
func TestCLIGlobal(t *testing.T) {
	farm := feedtest.NewFarm(1, 3)
	defer farm.Close()

	t.Run("ordinary commands print no log lines; -v turns the log on", func(t *testing.T) {
		dir := t.TempDir()
		if _, errOut, err := runQuietDefault(t, dir, "source", "add", farm.URL(0)); err != nil || errOut != "" {
			t.Fatalf("source add: %v, stderr %q", err, errOut)
		}
		out, errOut, err := runQuietDefault(t, dir, "fetch")
		if err != nil || strings.Contains(errOut, "level=INFO") || !strings.Contains(out, "Fetched") {
			t.Fatalf("fetch: %v, stdout %q, stderr %q", err, out, errOut)
		}
		_, errOut, err = runQuietDefault(t, dir, "-v", "source", "refresh", "--all")
		if err != nil {
			t.Fatal(err)
		}
		_, errOut, err = runQuietDefault(t, dir, "--verbose", "fetch")
		if err != nil || !strings.Contains(errOut, "level=INFO") {
			t.Fatalf("fetch -v logs nothing: %v, stderr %q", err, errOut)
		}
	})

	t.Run("a command's help lists its own flags; the server's only on serve, worker and the root", func(t *testing.T) {
		dir := t.TempDir()
		for _, args := range [][]string{{"source", "add", "--help"}, {"brief", "list", "--help"}, {"user", "--help"}, {"queue", "stats", "--help"}} {
			out := mustRun(t, dir, args...)
			if strings.Contains(out, "--fetch-workers") || strings.Contains(out, "--smtp-host") || strings.Contains(out, "--llm-model") {
				t.Errorf("%v lists the server's flags:\n%s", args, out)
			}
			if !strings.Contains(out, "--data-dir") || !strings.Contains(out, "--verbose") {
				t.Errorf("%v lacks the general flags:\n%s", args, out)
			}
		}
		if out := mustRun(t, dir, "source", "add", "--help"); !strings.Contains(out, "--interval") {
			t.Errorf("source add's help lacks --interval:\n%s", out)
		}
		for _, args := range [][]string{{"serve", "--help"}, {"worker", "--help"}, {"--help"}} {
			if out := mustRun(t, dir, args...); !strings.Contains(out, "--fetch-workers") || !strings.Contains(out, "--smtp-host") {
				t.Errorf("%v lacks the server's flags:\n%s", args, out)
			}
		}
	})

	t.Run("a group command without its command prints the help and fails", func(t *testing.T) {
		dir := t.TempDir()
		for _, args := range [][]string{{"import"}, {"source"}, {"brief"}, {"queue"}, {"user"}, {"import", "csv"}} {
			out, errOut, err := run(t, dir, args...)
			if err == nil || !strings.Contains(errOut, "Available Commands:") || out != "" {
				t.Errorf("%v: err %v, stdout %q, stderr %q", args, err, out, errOut)
			}
		}
		if _, errOut, _ := run(t, dir, "import"); !strings.Contains(errOut, "needs a command: one of opml") {
			t.Errorf("import: %q", errOut)
		}
	})

	t.Run("fetch says when sources fail, and where to look", func(t *testing.T) {
		dir := t.TempDir()
		mustRun(t, dir, "source", "add", "http://127.0.0.1:1/feed", "--type", "rss") // nothing listens on port 1
		if out := mustRun(t, dir, "fetch"); !strings.Contains(out, "Fetched 0 source(s)") || !strings.Contains(out, "1 source(s) failing: see morningdeck source list.") {
			t.Errorf("fetch of a source that fails: %q", out)
		}
	})

	t.Run("a missing or extra argument shows the command's usage line", func(t *testing.T) {
		dir := t.TempDir()
		for _, tc := range []struct {
			args []string
			want string
		}{
			{[]string{"brief", "add"}, "usage: morningdeck brief add NAME (see morningdeck brief add --help)"},
			{[]string{"source", "list", "extra"}, "usage: morningdeck source list (see morningdeck source list --help)"},
		} {
			if _, errOut, err := run(t, dir, tc.args...); err == nil || !strings.Contains(errOut, tc.want) {
				t.Errorf("%v: err %v, stderr %q; want %q", tc.args, err, errOut, tc.want)
			}
		}
	})

	t.Run("flag mistakes are sentences saying what to give", func(t *testing.T) {
		dir := t.TempDir()
		for _, tc := range []struct {
			args []string
			env  string
			want string
		}{
			{[]string{"source", "add", farm.URL(0), "--interval", "abc"}, "", `invalid value "abc" for --interval: give a whole number of minutes`},
			{[]string{"--http-timeout", "soon", "fetch"}, "", `invalid value "soon" for --http-timeout: give a duration, such as 30s, 5m or 2h`},
			{[]string{"source", "list", "--json=maybe"}, "", `invalid value "maybe" for --json: give true or false`},
			{[]string{"source", "list", "--bogus"}, "", "unknown flag: --bogus (see morningdeck source list --help)"},
			{[]string{"items", "list", "--sort", "bogus"}, "", `invalid value "bogus" for --sort: give date or score`},
			{[]string{"source", "list"}, "MORNINGDECK_FETCH_WORKERS=many", `invalid value "many" for MORNINGDECK_FETCH_WORKERS: give a whole number`},
		} {
			cmd := exec.Command(binary, append([]string{"--data-dir", dir}, tc.args...)...)
			cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir(), tc.env)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			if err == nil || !strings.Contains(stderr.String(), tc.want) || strings.Contains(stderr.String(), "strconv") {
				t.Errorf("%v: err %v, stderr %q; want %q", tc.args, err, stderr.String(), tc.want)
			}
			if n := strings.Count(stderr.String(), "Error:"); n != 1 {
				t.Errorf("%v: %d errors printed: %q", tc.args, n, stderr.String())
			}
		}
	})

	t.Run("--json on every list; queue stats names states as its table does", func(t *testing.T) {
		dir := t.TempDir()
		mustRun(t, dir, "brief", "add", "Morning", "--time", "07:00")
		for _, args := range [][]string{{"source", "list"}, {"items", "list"}, {"brief", "list"}, {"user", "list"}, {"queue", "failed"}, {"queue", "stats"}} {
			out := mustRun(t, dir, append(args, "--json")...)
			if !json.Valid([]byte(out)) {
				t.Errorf("%v --json is not JSON: %q", args, out)
			}
		}
		var briefs []struct {
			ID        int64   `json:"id"`
			Name      string  `json:"name"`
			NextRunAt *string `json:"nextRunAt"`
		}
		if err := json.Unmarshal([]byte(mustRun(t, dir, "brief", "list", "--json")), &briefs); err != nil || len(briefs) != 1 || briefs[0].Name != "Morning" || briefs[0].NextRunAt == nil {
			t.Errorf("brief list --json: %v %+v", err, briefs)
		}
		var users []struct {
			Name  string `json:"name"`
			Admin bool   `json:"admin"`
		}
		if err := json.Unmarshal([]byte(mustRun(t, dir, "user", "list", "--json")), &users); err != nil || len(users) != 1 || !users[0].Admin {
			t.Errorf("user list --json: %v %+v", err, users)
		}
		mustRun(t, dir, "queue", "pause", "email")
		table := mustRun(t, dir, "queue", "stats")
		var stats map[string]struct {
			State string `json:"state"`
			Ready int    `json:"ready"`
		}
		if err := json.Unmarshal([]byte(mustRun(t, dir, "queue", "stats", "--json")), &stats); err != nil {
			t.Fatal(err)
		}
		for name, q := range stats {
			line := ""
			for _, l := range strings.Split(table, "\n") {
				if strings.HasPrefix(l, name+" ") {
					line = l
				}
			}
			if f := strings.Fields(line); len(f) < 2 || f[1] != q.State {
				t.Errorf("queue %s: the table says %q, --json %q", name, line, q.State)
			}
		}
		if stats["email"].State != "paused" || stats["fetch"].State != "running" {
			t.Errorf("states: %+v", stats)
		}
	})
}
