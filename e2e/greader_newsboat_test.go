package e2e_test

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"
)

// TestNewsboatReaderAPI drives Debian's newsboat, a real Google Reader API client (its FeedHQ
// mode), against the built binary with sign-in required: what is followed in Morning Deck
// reaches newsboat, what is read and starred in newsboat reaches Morning Deck, and what is
// read, unread and starred in Morning Deck reaches newsboat on its next reload. newsboat's
// screens are driven through tmux; every wait is on a condition, with a long deadline.
func TestNewsboatReaderAPI(t *testing.T) {
	newsboat, err := exec.LookPath("newsboat")
	if err != nil {
		missingTool(t, "newsboat is not installed: `make deps` installs it (apt-get install newsboat); this test drives it against the Reader API")
	}
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		missingTool(t, "tmux is not installed: `make deps` installs it (apt-get install tmux); this test drives newsboat's screens with it")
	}
	corpus := filepath.Join(repoRoot, "testdata", "corpus", "feeds")
	if _, err := os.Stat(filepath.Join(corpus, "PaulDixExplainsNothing.xml")); err != nil {
		t.Fatalf("the test corpus is missing (%v): this test serves its feeds", err)
	}
	feeds := httptest.NewServer(http.FileServer(http.Dir(corpus)))
	t.Cleanup(feeds.Close)

	dir := t.TempDir()
	const annPass = "ann's long password"
	for _, u := range []struct{ name, pass string }{{"ann", annPass}, {"bob", "bob's long password"}} {
		cmd := exec.Command(binary, "--data-dir", dir, "user", "add", u.name)
		cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir(), "MORNINGDECK_LOG_LEVEL=warn")
		cmd.Stdin = strings.NewReader(u.pass + "\n")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("user add %s: %v %s", u.name, err, out)
		}
	}
	annTok := strings.TrimSpace(mustRun(t, dir, "user", "token", "ann", "test"))
	bobTok := strings.TrimSpace(mustRun(t, dir, "user", "token", "bob", "test"))
	base, _ := startServer(t, dir, "--require-login", "--fetch-allow", "127.0.0.1")

	api := func(method, path, tok, body string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, base+strings.TrimPrefix(path, "/"), strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	type item struct {
		ID      int64  `json:"id"`
		Title   string `json:"title"`
		Read    bool   `json:"read"`
		Starred bool   `json:"starred"`
	}
	items := func(sourceID int64) []item {
		t.Helper()
		code, body := api("GET", fmt.Sprintf("/api/items?sourceId=%d&limit=500", sourceID), annTok, "")
		if code != http.StatusOK {
			t.Fatalf("items: %d %s", code, body)
		}
		var out []item
		if err := json.Unmarshal([]byte(body), &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(3 * time.Minute)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("waited 3 minutes for %s", what)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}

	// Ann follows a feed in Morning Deck; bob follows another, which ann must never see.
	follow := func(tok, name string) int64 {
		code, body := api("POST", "/api/sources", tok, fmt.Sprintf(`{"url":%q,"type":"rss"}`, feeds.URL+"/"+name))
		if code != http.StatusCreated {
			t.Fatalf("follow %s: %d %s", name, code, body)
		}
		var src struct{ ID int64 }
		_ = json.Unmarshal([]byte(body), &src)
		return src.ID
	}
	paul := follow(annTok, "PaulDixExplainsNothing.xml")
	follow(bobTok, "SamRuby.xml")
	waitFor("the feed's 5 items in Morning Deck", func() bool { return len(items(paul)) == 5 })

	nb := t.TempDir()
	config := fmt.Sprintf(`urls-source "feedhq"
feedhq-url "%sapi/greader/newsboat"
feedhq-login "ann"
feedhq-password "%s"
feedhq-show-special-feeds "no"
feedhq-flag-star "s"
feedhq-min-items 50
`, base, annPass)
	for name, body := range map[string]string{"config": config, "urls": ""} {
		if err := os.WriteFile(filepath.Join(nb, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	nbArgs := []string{"-C", filepath.Join(nb, "config"), "-c", filepath.Join(nb, "cache.db"), "-u", filepath.Join(nb, "urls")}
	nbEnv := append(os.Environ(), "HOME="+nb, "XDG_CONFIG_HOME="+nb, "XDG_DATA_HOME="+nb, "TERM=xterm-256color", "LANG=C.UTF-8")
	reload := func() string {
		t.Helper()
		cmd := exec.Command(newsboat, append(nbArgs, "-x", "reload", "print-unread")...)
		cmd.Env = nbEnv
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("newsboat -x reload: %v\n%s", err, out.String())
		}
		return strings.TrimSpace(out.String())
	}
	type nbItem struct {
		Title, FeedURL string
		Unread         bool
	}
	cache := func() map[string]nbItem {
		t.Helper()
		db, err := sql.Open("sqlite", "file:"+filepath.Join(nb, "cache.db")+"?mode=ro")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		rows, err := db.Query(`select title, feedurl, unread from rss_item where deleted = 0`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[string]nbItem{}
		for rows.Next() {
			var it nbItem
			if err := rows.Scan(&it.Title, &it.FeedURL, &it.Unread); err != nil {
				t.Fatal(err)
			}
			out[it.Title] = it
		}
		return out
	}

	// 1. What ann follows in Morning Deck, newsboat lists, all unread; bob's feed is not there.
	if out := reload(); out != "5 unread articles" {
		t.Fatalf("newsboat after the first reload: %q", out)
	}
	got := cache()
	for _, it := range items(paul) {
		if c, ok := got[it.Title]; !ok || !c.Unread || !strings.Contains(c.FeedURL, "PaulDixExplainsNothing") {
			t.Errorf("newsboat's cache has %q as %+v (found %v)", it.Title, c, ok)
		}
	}
	if len(got) != 5 {
		t.Errorf("newsboat has %d items, want ann's 5 (bob's feed must not reach her)", len(got))
	}

	// 2. Ann opens an article in newsboat and flags it starred: Morning Deck has it read and starred.
	sock := filepath.Join(nb, "tmux.sock")
	tm := func(args ...string) string {
		cmd := exec.Command(tmux, append([]string{"-S", sock}, args...)...)
		cmd.Env = nbEnv
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	t.Cleanup(func() { tm("kill-server") })
	quoted := []string{shellQuote(newsboat)}
	for _, a := range nbArgs {
		quoted = append(quoted, shellQuote(a))
	}
	shell := strings.Join(quoted, " ")
	if out := tm("new-session", "-d", "-s", "nb", "-x", "160", "-y", "40", shell); out != "" {
		t.Fatalf("tmux new-session: %s", out)
	}
	screen := func() string { return tm("capture-pane", "-p", "-t", "nb") }
	waitScreen := func(want string) {
		t.Helper()
		waitFor(fmt.Sprintf("newsboat to show %q", want), func() bool { return strings.Contains(screen(), want) })
	}
	waitScreen("Your feeds")
	waitScreen("Paul Dix Explains Nothing")
	tm("send-keys", "-t", "nb", "Enter")
	waitScreen("Articles in feed 'Paul Dix Explains Nothing'")
	tm("send-keys", "-t", "nb", "Enter")
	waitScreen("Article '")
	opened := screen()
	tm("send-keys", "-t", "nb", "C-e")
	waitScreen("Flags:")
	tm("send-keys", "-t", "nb", "s", "Enter")
	waitScreen("Flags updated")
	var readInNewsboat item
	waitFor("the article read and starred in Morning Deck", func() bool {
		n := 0
		for _, it := range items(paul) {
			if it.Read && it.Starred {
				readInNewsboat = it
				n++
			}
		}
		return n == 1
	})
	if !strings.Contains(opened, readInNewsboat.Title) {
		t.Fatalf("Morning Deck marked %q, but newsboat showed:\n%s", readInNewsboat.Title, opened)
	}
	tm("send-keys", "-t", "nb", "q")
	waitScreen("Articles in feed")
	tm("send-keys", "-t", "nb", "q")
	waitScreen("Your feeds")
	tm("send-keys", "-t", "nb", "q")
	waitFor("newsboat to quit", func() bool { return exec.Command(tmux, "-S", sock, "has-session", "-t", "nb").Run() != nil })

	// 3. In Morning Deck ann marks that article unread again, another read and a third starred:
	// newsboat's next reload shows all three.
	var other, starred item
	for _, it := range items(paul) {
		switch {
		case it.ID == readInNewsboat.ID:
		case other.ID == 0:
			other = it
		case starred.ID == 0:
			starred = it
		}
	}
	for _, p := range []struct {
		id   int64
		body string
	}{{readInNewsboat.ID, `{"read":false}`}, {other.ID, `{"read":true}`}, {starred.ID, `{"starred":true}`}} {
		if code, body := api("PATCH", fmt.Sprintf("/api/items/%d", p.id), annTok, p.body); code != http.StatusOK {
			t.Fatalf("patch item %d: %d %s", p.id, code, body)
		}
	}
	if out := reload(); out != "4 unread articles" {
		t.Fatalf("newsboat after the second reload: %q", out)
	}
	got = cache()
	if c := got[readInNewsboat.Title]; !c.Unread {
		t.Errorf("marked unread in Morning Deck, newsboat has %+v", c)
	}
	if c := got[other.Title]; c.Unread {
		t.Errorf("marked read in Morning Deck, newsboat has %+v", c)
	}
	// newsboat keeps an article in one feed: a starred one moves to the Starred feed.
	if c := got[starred.Title]; !strings.Contains(c.FeedURL, "starred") {
		t.Errorf("starred in Morning Deck, newsboat has %+v", c)
	}
}

// shellQuote quotes s for sh, which tmux runs the command with.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
