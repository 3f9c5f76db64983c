package e2e_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app/feeds/feedtest"
)

func TestCLI(t *testing.T) {
	farm := feedtest.NewFarm(3, 5)
	defer farm.Close()

	t.Run("source add, list, fetch, refresh and rm work on the database", func(t *testing.T) {
		dir := t.TempDir()
		out := mustRun(t, dir, "source", "add", farm.URL(0), "--interval", "30")
		if !strings.Contains(out, "Added source 1") {
			t.Fatalf("add said %q", out)
		}
		mustRun(t, dir, "source", "add", farm.URL(1), "--type", "rss", "--name", "Second")
		if out := mustRun(t, dir, "fetch"); !strings.Contains(out, "Fetched") {
			t.Fatalf("fetch said %q", out)
		}
		srcs := listSources(t, dir)
		if len(srcs) != 2 || srcs[0].ItemCount != 5 || srcs[1].ItemCount != 5 || srcs[0].FetchStatus != "IDLE" {
			t.Fatalf("sources after fetch: %+v", srcs)
		}
		if srcs[0].Name != "Farm feed 0" || srcs[1].Name != "Second" {
			t.Fatalf("names: %q, %q", srcs[0].Name, srcs[1].Name)
		}
		if out := mustRun(t, dir, "source", "refresh", "--all"); !strings.Contains(out, "Queued 2") {
			t.Fatalf("refresh said %q", out)
		}
		table := mustRun(t, dir, "source", "list")
		if !strings.Contains(table, "Farm feed 0") || !strings.Contains(table, "QUEUED") {
			t.Fatalf("list table:\n%s", table)
		}
		mustRun(t, dir, "source", "rm", "1")
		if srcs := listSources(t, dir); len(srcs) != 1 {
			t.Fatalf("after rm: %+v", srcs)
		}
	})

	t.Run("errors go to stderr with a non-zero exit", func(t *testing.T) {
		dir := t.TempDir()
		for _, tc := range []struct {
			args []string
			want string
		}{
			{[]string{"source", "add", farm.URL(0), "--type", "rss", "--interval", "0"}, "between 1 and 10080"},
			{[]string{"source", "add", farm.URL(0), "--type", "bogus"}, "Unknown source type"},
			{[]string{"source", "rm", "42"}, "not found"},
			{[]string{"source", "rm", "abc"}, "not a source ID"},
			{[]string{"items", "show", "abc"}, `"abc" is not an item ID`},
			{[]string{"enrich", "0"}, `"0" is not an item ID`},
			{[]string{"brief", "run", "abc"}, `"abc" is not a briefing ID`},
			{[]string{"brief", "show", "abc"}, `"abc" is not a report ID`},
			{[]string{"source", "add", "r/golang+rust"}, "multireddit"},
			{[]string{"source", "add", "r/golang+rust", "--type", "reddit"}, "add each subreddit (r/golang, r/rust)"},
			{[]string{"source", "refresh"}, "--all"},
			{[]string{"import", "opml", filepath.Join(dir, "missing.opml")}, "no such file"},
		} {
			out, errOut, err := run(t, dir, tc.args...)
			if err == nil || !strings.Contains(errOut, tc.want) {
				t.Errorf("%v: err %v, stdout %q, stderr %q; want %q on stderr", tc.args, err, out, errOut, tc.want)
			}
		}
	})

	t.Run("OPML export and import round-trip every source", func(t *testing.T) {
		dir := t.TempDir()
		mustRun(t, dir, "source", "add", farm.URL(0), "--type", "rss", "--name", "A & B <feed>", "--interval", "45")
		mustRun(t, dir, "source", "add", farm.URL(1), "--type", "rss")
		mustRun(t, dir, "source", "add", "r/golang", "--type", "reddit")
		opml := mustRun(t, dir, "export", "opml")
		file := filepath.Join(t.TempDir(), "subs.opml")
		if err := os.WriteFile(file, []byte(opml), 0o600); err != nil {
			t.Fatal(err)
		}
		dir2 := t.TempDir()
		if out := mustRun(t, dir2, "import", "opml", file); !strings.Contains(out, "3 added, 0 skipped") {
			t.Fatalf("import said %q", out)
		}
		if out := mustRun(t, dir2, "import", "opml", file); !strings.Contains(out, "0 added, 3 skipped") {
			t.Fatalf("second import said %q", out)
		}
		a, b := listSources(t, dir), listSources(t, dir2)
		if len(a) != len(b) {
			t.Fatalf("%d sources exported, %d imported", len(a), len(b))
		}
		for i := range a {
			if a[i].URL != b[i].URL || a[i].Name != b[i].Name || a[i].Type != b[i].Type {
				t.Errorf("source %d: exported %+v, imported %+v", i, a[i], b[i])
			}
		}
	})

	t.Run("version prints the version", func(t *testing.T) {
		if out := mustRun(t, t.TempDir(), "version"); !strings.HasPrefix(out, "morningdeck ") {
			t.Fatalf("version said %q", out)
		}
	})
}

func TestCrashMidFetch(t *testing.T) {
	// The first request to the feed hangs until the process that made it is killed.
	farm := feedtest.NewFarm(1, 20)
	defer farm.Close()
	var once sync.Once
	fetching := make(chan struct{})
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		first := false
		once.Do(func() { first = true })
		if first {
			close(fetching)
			<-release
			return
		}
		farm.Config.Handler.ServeHTTP(w, r)
	}))
	defer slow.Close()
	defer close(release)
	dir := t.TempDir()
	u := slow.URL + "/feed/0.xml"
	mustRun(t, dir, "source", "add", u, "--type", "rss")

	_, srv := startServer(t, dir, "--fetch-job-timeout", "2s")
	select {
	case <-fetching:
	case <-time.After(patience):
		t.Fatal("the server never fetched the source")
	}
	if err := srv.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = srv.Wait()
	// Caught mid-fetch: its row says QUEUED (the server marks the sources it is fetching in its
	// memory only, issue 26), and its job is still in the queue.
	if s := listSources(t, dir); s[0].FetchStatus != "QUEUED" {
		t.Fatalf("after kill -9 the source is %s, want it caught mid-fetch (QUEUED, its job live)", s[0].FetchStatus)
	}

	startServer(t, dir, "--fetch-job-timeout", "2s")
	deadline := time.Now().Add(patience)
	for {
		s := listSources(t, dir)
		if s[0].FetchStatus == "IDLE" && s[0].ItemCount == 20 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("source after restart: %+v", s[0])
		}
		time.Sleep(100 * time.Millisecond)
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, "morningdeck.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var items, distinct int
	if err := db.QueryRowContext(context.Background(), `select count(*), count(distinct guid) from items`).Scan(&items, &distinct); err != nil {
		t.Fatal(err)
	}
	if items != 20 || distinct != 20 {
		t.Fatalf("items %d (distinct %d), want 20 once each", items, distinct)
	}
}

func TestGracefulShutdown(t *testing.T) {
	t.Run("SIGTERM lets a running fetch finish, then the process exits cleanly", func(t *testing.T) {
		farm := feedtest.NewFarm(1, 5)
		defer farm.Close()
		started := make(chan struct{}, 1)
		slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case started <- struct{}{}:
			default:
			}
			time.Sleep(1500 * time.Millisecond)
			farm.Config.Handler.ServeHTTP(w, r)
		}))
		defer slow.Close()
		dir := t.TempDir()
		mustRun(t, dir, "source", "add", slow.URL+"/feed/0.xml", "--type", "rss")
		_, srv := startServer(t, dir)
		select {
		case <-started:
		case <-time.After(patience):
			t.Fatal("the fetch never started")
		}
		if err := srv.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- srv.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("exit: %v", err)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("the process did not exit after SIGTERM")
		}
		s := listSources(t, dir)
		if s[0].FetchStatus != "IDLE" || s[0].ItemCount != 5 {
			t.Fatalf("after shutdown the in-flight fetch should have finished: %+v", s[0])
		}
	})
}

func TestCrashMidProcessing(t *testing.T) {
	// The LLM hangs on its first request; the process is killed while it waits.
	var requests atomic.Int64
	hung := make(chan struct{})
	release := make(chan struct{})
	llm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if requests.Add(1) == 1 {
			close(hung)
			<-release
			return
		}
		content := `{"summary":"The summary.","tags":["farm"],"topics":[],"score":64,"reasoning":"Matches farming."}`
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":5}}`, content)
	}))
	defer llm.Close()
	defer close(release)
	farm := feedtest.NewFarm(1, 5)
	defer farm.Close()
	dir := t.TempDir()
	mustRun(t, dir, "source", "add", farm.URL(0), "--type", "rss")
	mustRun(t, dir, "fetch") // the first import: 5 items DONE, scored by the embedded enricher, never the LLM
	farm.Bump(0)
	llmFlags := []string{"--enricher", "llm", "--llm-model", "test", "--llm-base-url", llm.URL, "--process-job-timeout", "2s", "--llm-fallback=false"}
	mustRun(t, dir, append([]string{"source", "refresh", "--all"}, llmFlags...)...)

	_, srv := startServer(t, dir, llmFlags...)
	select {
	case <-hung:
	case <-time.After(patience):
		t.Fatal("the new item was never sent to the LLM")
	}
	_ = srv.Process.Signal(syscall.SIGKILL)
	_ = srv.Wait()

	startServer(t, dir, llmFlags...)
	db, err := sql.Open("sqlite", filepath.Join(dir, "morningdeck.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var done, enriched, credits int
		_ = db.QueryRow(`select count(*), coalesce(sum(enriched_by = 'llm:test'), 0) from items where status = 'DONE'`).Scan(&done, &enriched)
		_ = db.QueryRow(`select credits from users where id = 1`).Scan(&credits)
		if done == 6 && enriched == 1 {
			if credits != 999 {
				t.Fatalf("credits %d after one enrichment, want 999", credits)
			}
			var items int
			_ = db.QueryRow(`select count(*) from items`).Scan(&items)
			if items != 6 {
				t.Fatalf("%d items, want 6", items)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after restart: %d DONE, %d enriched; LLM requests %d", done, enriched, requests.Load())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestLLMConfiguredInSettings(t *testing.T) {
	t.Run("an LLM set in the settings (not the flags) enriches new items with its key; the key is never shown nor logged", func(t *testing.T) {
		var auth atomic.Value
		var calls atomic.Int32
		llm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			auth.Store(r.Header.Get("Authorization"))
			if calls.Add(1) == 1 {
				// The first answer quotes the key it refuses, whole and in part, as some servers do.
				key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusUnauthorized)
				fmt.Fprintf(w, `{"error":{"message":"Incorrect API key provided: %s (%s...)"}}`, key, key[:10])
				return
			}
			content := `{"summary":"Summary by the model.","tags":["farm"],"topics":[],"score":70,"reasoning":"Because."}`
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"choices":[{"index":0,"message":{"role":"assistant","content":%q}}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`, content)
		}))
		defer llm.Close()
		farm := feedtest.NewFarm(1, 3)
		defer farm.Close()
		dir := t.TempDir()
		mustRun(t, dir, "source", "add", farm.URL(0), "--type", "rss")
		mustRun(t, dir, "fetch")
		var appLog syncBuffer
		base, _ := startServerLog(t, dir, &appLog, "--log-level", "debug")
		patch := fmt.Sprintf(`{"enricher": "llm", "llmBaseUrl": %q, "llmModel": "house-model", "llmApiKey": "sk-very-secret"}`, llm.URL)
		req, _ := http.NewRequest(http.MethodPatch, base+"api/settings", strings.NewReader(patch))
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || strings.Contains(string(body), "sk-very-secret") || !strings.Contains(string(body), `"llmApiKeySet":true`) {
			t.Fatalf("PATCH settings: %d %s", res.StatusCode, body)
		}
		for _, path := range []string{"settings", "api/settings"} {
			res, err := http.Get(base + path)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if strings.Contains(string(b), "sk-very-secret") {
				t.Fatalf("/%s shows the API key", path)
			}
		}
		farm.Bump(0)
		mustRun(t, dir, "source", "refresh", "--all")
		db, err := sql.Open("sqlite", filepath.Join(dir, "morningdeck.db")+"?mode=ro")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		// The first attempt is refused: its error is kept on the item, without the key.
		deadline := time.Now().Add(patience)
		for {
			var lastError string
			_ = db.QueryRow(`select coalesce(max(last_error), '') from items where last_error like '%401%'`).Scan(&lastError)
			if lastError != "" {
				if strings.Contains(lastError, "sk-very") || !strings.Contains(lastError, "[key]") {
					t.Fatalf("the item's error: %q", lastError)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the refused attempt left no error on the item")
			}
			time.Sleep(100 * time.Millisecond)
		}
		var itemID int64
		_ = db.QueryRow(`select id from items where last_error like '%401%'`).Scan(&itemID)
		for _, path := range []string{fmt.Sprintf("items/%d", itemID), fmt.Sprintf("api/items/%d", itemID), "items", "queues"} {
			res, err := http.Get(base + path)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if strings.Contains(string(b), "sk-very") {
				t.Fatalf("/%s shows the API key", path)
			}
		}
		// The retry (after the queue's backoff, about 10 s) succeeds.
		deadline = time.Now().Add(45 * time.Second)
		for {
			var n int
			_ = db.QueryRow(`select count(*) from items where enriched_by = 'llm:house-model' and summary = 'Summary by the model.'`).Scan(&n)
			if n == 1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the new item was not enriched by the LLM from the settings")
			}
			time.Sleep(100 * time.Millisecond)
		}
		if got, _ := auth.Load().(string); got != "Bearer sk-very-secret" {
			t.Fatalf("Authorization %q", got)
		}
		if logged := appLog.String(); strings.Contains(logged, "sk-very") || !strings.Contains(logged, "401") {
			t.Fatalf("the app's debug log shows the key, or not the refusal:\n%s", logged)
		}
	})
}

func TestBriefCLI(t *testing.T) {
	t.Run("brief add, run, list and show", func(t *testing.T) {
		farm := feedtest.NewFarm(2, 3)
		defer farm.Close()
		dir := t.TempDir()
		mustRun(t, dir, "source", "add", farm.URL(0), "--type", "rss")
		mustRun(t, dir, "fetch")
		if out := mustRun(t, dir, "brief", "add", "Morning", "--timezone", "Asia/Kolkata", "--time", "06:30", "--items", "2"); !strings.Contains(out, "Added briefing 1") {
			t.Fatalf("add: %q", out)
		}
		md := mustRun(t, dir, "brief", "run", "1")
		if !strings.HasPrefix(md, "# Morning") || !strings.Contains(md, "IST") || !strings.Contains(md, "1. **[Story") {
			t.Fatalf("run printed:\n%s", md)
		}
		if out := mustRun(t, dir, "brief", "list"); !strings.Contains(out, "Asia/Kolkata") || !strings.Contains(out, "#1") {
			t.Fatalf("list:\n%s", out)
		}
		var rep struct {
			Items []struct {
				Rank  int    `json:"rank"`
				Title string `json:"title"`
			} `json:"items"`
		}
		if err := json.Unmarshal([]byte(mustRun(t, dir, "brief", "show", "1", "--format", "json")), &rep); err != nil || len(rep.Items) == 0 || rep.Items[0].Rank != 1 {
			t.Fatalf("show json: %v %+v", err, rep)
		}
		if _, errOut, err := run(t, dir, "brief", "add", "Bad", "--timezone", "Nowhere/Land"); err == nil || !strings.Contains(errOut, "Unknown time zone") {
			t.Fatalf("bad zone: %v %q", err, errOut)
		}
	})
}

// syncBuffer is a bytes.Buffer safe for a process's output and the test reading it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
