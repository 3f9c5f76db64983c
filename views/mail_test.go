package views_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/feeds"
	"github.com/morningdeck/morningdeck/app/feeds/mailtest"
	"github.com/morningdeck/morningdeck/app/greader"
	"github.com/morningdeck/morningdeck/queue"
	"github.com/morningdeck/morningdeck/views"
)

// lockedBuffer is a log's output, written by several goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// mailEnv is a signed-in server whose Sources can read mail folders, with its log kept.
func mailEnv(t *testing.T) (*authEnv, *app.Sources, *lockedBuffer, string) {
	t.Helper()
	logs := &lockedBuffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	box, err := app.LoadSecretBox(filepath.Join(t.TempDir(), "secret.key"))
	if err != nil {
		t.Fatal(err)
	}
	var srcs *app.Sources
	e := newAuthEnvOpts(t, func(o *views.Options) {
		db := o.Sources.Store.(interface {
			app.SourceStore
			app.FetchStore
			app.MailboxStore
		})
		fq := queue.NewFetchQueue(queue.FetchQueueOptions{Store: db.(queue.Store), PollInterval: 20 * time.Millisecond})
		srcs = &app.Sources{Store: db, Queue: fq, Fetches: db, Log: log, Mail: feeds.NewMail(feeds.MailOptions{Timeout: 5 * time.Second}),
			Mailboxes: db, Secrets: box}
		queue.HandleFetch(fq, srcs)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { _ = fq.Run(ctx); close(done) }()
		t.Cleanup(func() { cancel(); <-done })
		o.Sources, o.Log = srcs, log
		o.Reader = &greader.Reader{Store: o.Reader.Store, Sources: srcs}
		o.ExportOPML = srcs.ExportOPML
	})
	return e, srcs, logs, e.login("ann", "correct horse battery")
}

// TestAddMailFolder: the form checks the folder before saving it and says in plain words what
// failed, showing the form again as typed but with the password field empty; once right, the
// source is saved and its newsletters fetched.
func TestAddMailFolder(t *testing.T) {
	const password = "Xq7-app-PASSWORD-ZZ9"
	s := mailtest.Start(t, "reader@example.org", password, "Newsletters")
	s.Add(t, "Newsletters", mailtest.Newsletter("news@weekly.example", "The Weekly", 1, time.Now(), "Rates and chips."), time.Now())
	e, _, _, cookie := mailEnv(t)
	form := url.Values{"host": {"127.0.0.1"}, "port": {strconv.Itoa(s.Port)}, "security": {"plain"}, "username": {s.User},
		"password": {password}, "folder": {"Newsletters"}, "name": {"Weekly letters"}}
	post := func(change func(url.Values)) (*http.Response, string) {
		v := url.Values{}
		for k, x := range form {
			v[k] = append([]string(nil), x...)
		}
		change(v)
		return e.req("POST", "/sources/mail", v.Encode(), "Cookie", cookie)
	}
	for _, tc := range []struct {
		name, says string
		change     func(url.Values)
	}{
		{"a wrong password", "refused the login of reader@example.org", func(v url.Values) { v.Set("password", "wrong-"+password) }},
		{"no such folder", `There is no folder &#34;Newsletterz&#34;`, func(v url.Values) { v.Set("folder", "Newsletterz") }},
		{"host not found", "could not be found: check its name", func(v url.Values) { v.Set("host", "imap.no-such-host.invalid"); v.Set("security", "tls") }},
		{"TLS on a plain port", "The secure connection (TLS)", func(v url.Values) { v.Set("host", "localhost"); v.Set("security", "tls") }},
		{"no encryption to another machine", "only to this machine", func(v url.Values) { v.Set("host", "imap.example.com") }},
		{"no password", "Enter the password", func(v url.Values) { v.Set("password", "") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, body := post(tc.change)
			if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, tc.says) {
				t.Fatalf("%d, want 422 saying %q:\n%s", res.StatusCode, tc.says, excerptAround(body, "mail-error"))
			}
			if strings.Contains(body, password) {
				t.Error("the page shows the password back")
			}
			if !strings.Contains(body, `value="Weekly letters"`) || !strings.Contains(body, `<details class="panel mail-form" open`) {
				t.Error("the form is not shown again, open, as typed")
			}
		})
	}
	res, body := post(func(url.Values) {})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("a right folder: %d %s", res.StatusCode, excerptAround(body, "mail-error"))
	}
	page := res.Header.Get("Location")
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, body = e.req("GET", page, "", "Cookie", cookie)
		if strings.Contains(body, "Issue 1: Rates and chips.") || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, want := range []string{"Issue 1: Rates and chips.", "Mail folder", `data-testid="edit-mail-form"`, "(leave empty to keep)", `name="password" value=""`, "The Weekly", "news@weekly.example"} {
		if !strings.Contains(body, want) {
			t.Errorf("the source's page lacks %q", want)
		}
	}
	if strings.Contains(body, password) {
		t.Error("the source's page shows the password")
	}
}

// TestMailPasswordNeverShown: a mail folder's password appears in no page, API answer (the
// JSON API, the Reader API), OPML export, log line or backup of the database.
func TestMailPasswordNeverShown(t *testing.T) {
	const password = "Secret-App-Pw-7734-ZQ"
	s := mailtest.Start(t, "reader@example.org", password, "Newsletters")
	for n := 1; n <= 3; n++ {
		d := time.Now().Add(time.Duration(n-5) * time.Hour)
		s.Add(t, "Newsletters", mailtest.Newsletter("news@weekly.example", "The Weekly", n, d, "Rates and chips and coffee."), d)
	}
	e, srcs, logs, cookie := mailEnv(t)
	ctx := context.Background()
	src, err := srcs.AddMail(ctx, app.AddMail{UserID: e.ann.ID, Mailbox: s.Mailbox("Newsletters"), Password: password})
	if err != nil {
		t.Fatal(err)
	}
	id := strconv.FormatInt(src.ID, 10)
	deadline := time.Now().Add(10 * time.Second)
	for {
		n, _ := e.db.CountItems(ctx, e.ann.ID, src.ID)
		if n == 3 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	// A wrong password once: the failure is logged and shown, the password given is not.
	if err := srcs.UpdateMail(ctx, e.ann.ID, src.ID, s.Mailbox("Newsletters"), "x"+password); err == nil {
		t.Error("a wrong password was saved")
	}
	items, _ := e.db.Items(ctx, app.ItemFilter{UserID: e.ann.ID, SourceID: src.ID, Limit: 1})
	if len(items) == 0 {
		t.Fatal("no items were fetched")
	}
	var answers []string
	for _, path := range []string{"/sources", "/sources/" + id, "/sources/" + id + "/edit", "/items", "/items/" + strconv.FormatInt(items[0].ID, 10), "/",
		"/api/sources", "/api/sources/" + id, "/api/sources/" + id + "/items", "/sources/export.opml", "/settings"} {
		res, body := e.req("GET", path, "", "Cookie", cookie)
		if res.StatusCode >= 500 {
			t.Errorf("GET %s: %d", path, res.StatusCode)
		}
		answers = append(answers, path+"\n"+body)
	}
	// The API: a folder added by JSON answers with the source (201), a refused one with what failed (400).
	for _, pw := range []string{"x" + password, password} {
		body := `{"host":"127.0.0.1","port":` + strconv.Itoa(s.Port) + `,"security":"plain","username":"reader@example.org","password":"` + pw + `","folder":"Newsletters","sender":"news@weekly.example"}`
		res, b := e.req("POST", "/api/sources/mail", body, "Authorization", e.token(e.ann))
		want := http.StatusCreated
		if pw != password {
			want = http.StatusBadRequest
		}
		if res.StatusCode != want || (want == http.StatusCreated && !strings.Contains(b, `"type":"imap"`)) || (want != http.StatusCreated && !strings.Contains(b, "refused the login")) {
			t.Errorf("POST /api/sources/mail: %d %s", res.StatusCode, b)
		}
		answers = append(answers, "POST /api/sources/mail\n"+b)
	}
	// The add form again, after an error: the password field is empty.
	_, body := e.req("POST", "/sources/mail", url.Values{"host": {"127.0.0.1"}, "port": {strconv.Itoa(s.Port)}, "security": {"plain"},
		"username": {s.User}, "password": {password}, "folder": {"Nope"}}.Encode(), "Cookie", cookie)
	answers = append(answers, "POST /sources/mail\n"+body)
	gr := clientLogin(t, e.srv.URL, "ann", "correct horse battery")
	answers = append(answers, "greader subscription/list\n"+gr.ok(http.MethodGet, "/api/greader/reader/api/0/subscription/list", url.Values{"output": {"json"}}))
	answers = append(answers, "greader stream\n"+gr.ok(http.MethodGet, "/api/greader/reader/api/0/stream/contents/feed/"+url.PathEscape(src.URL), nil))
	backup := filepath.Join(t.TempDir(), "backup.db")
	if err := e.db.Backup(ctx, backup); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(backup)
	if err != nil {
		t.Fatal(err)
	}
	answers = append(answers, "backup\n"+string(b), "log\n"+logs.String())
	if !strings.Contains(answers[len(answers)-1], "mail source added") || !strings.Contains(answers[0], "Newsletters") {
		t.Fatalf("the test looks at nothing: log %q", logs.String())
	}
	for _, a := range answers {
		what, body, _ := strings.Cut(a, "\n")
		for _, secret := range []string{password, "x" + password} {
			if i := strings.Index(body, secret); i >= 0 {
				t.Errorf("%s shows the password: …%s…", what, body[max(0, i-80):min(len(body), i+80)])
			}
		}
	}
	// And it is stored: the fetcher reads it back.
	if _, sealed, err := e.db.MailAccount(ctx, src.ID); err != nil || bytes.Contains(sealed, []byte(password)) {
		t.Errorf("sealed: %v", err)
	}
}

// excerptAround is the part of a page around marker, for failure messages.
func excerptAround(body, marker string) string {
	i := strings.Index(body, marker)
	if i < 0 {
		return "(no " + marker + ")"
	}
	return body[max(0, i-100):min(len(body), i+400)]
}

// TestMailSourceSettingsAndSenders: a mail source's page edits its mailbox (an empty password
// keeps the stored one; a wrong folder is said and nothing is saved) and lists its newsletters
// by sender, each of which can be followed as a source of its own, which the folder's source
// then leaves that sender's mail to.
func TestMailSourceSettingsAndSenders(t *testing.T) {
	const password = "pw-Settings-81"
	s := mailtest.Start(t, "reader@example.org", password, "Newsletters")
	day := time.Now().Add(-48 * time.Hour)
	for n := 1; n <= 4; n++ {
		sender, name := "news@weekly.example", "The Weekly"
		if n%2 == 0 {
			sender, name = "crew@brew.example", "Morning Brew"
		}
		s.Add(t, "Newsletters", mailtest.Newsletter(sender, name, n, day.Add(time.Duration(n)*time.Hour), "Rates and chips."), day)
	}
	e, srcs, _, cookie := mailEnv(t)
	ctx := context.Background()
	src, err := srcs.AddMail(ctx, app.AddMail{UserID: e.ann.ID, Mailbox: s.Mailbox("Newsletters"), Password: password})
	if err != nil {
		t.Fatal(err)
	}
	id := strconv.FormatInt(src.ID, 10)
	waitItems := func(sourceID int64, want int) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			n, _ := e.db.CountItems(ctx, e.ann.ID, sourceID)
			if n == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("source %d has %d items, want %d", sourceID, n, want)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	waitItems(src.ID, 4)
	edit := url.Values{"host": {"127.0.0.1"}, "port": {strconv.Itoa(s.Port)}, "security": {"plain"}, "username": {s.User},
		"folder": {"Nope"}, "first": {"20"}, "markread": {"on"}}
	res, body := e.req("POST", "/sources/"+id+"/mail", edit.Encode(), "Cookie", cookie)
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "There is no folder &#34;Nope&#34;") {
		t.Fatalf("a wrong folder: %d %s", res.StatusCode, excerptAround(body, "mail-error"))
	}
	edit.Set("folder", "Newsletters")
	res, body = e.req("POST", "/sources/"+id+"/mail", edit.Encode(), "Cookie", cookie)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("saving with the password left empty: %d %s", res.StatusCode, excerptAround(body, "mail-error"))
	}
	m, err := srcs.Mailbox(ctx, e.ann.ID, src.ID)
	if err != nil || m.FirstImport != 20 || !m.MarkRead || m.Folder != "Newsletters" {
		t.Fatalf("saved mailbox %+v %v", m, err)
	}
	if _, sealed, _ := e.db.MailAccount(ctx, src.ID); sealed == nil {
		t.Fatal("the password was lost")
	}
	if err := srcs.CheckMail(ctx, *m, password); err != nil {
		t.Fatal(err)
	}
	// Another user cannot see or change it.
	bob := e.login("bob", "another long secret")
	if res, _ := e.req("POST", "/sources/"+id+"/mail", edit.Encode(), "Cookie", bob); res.StatusCode != http.StatusNotFound {
		t.Errorf("bob's edit of ann's mail source: %d", res.StatusCode)
	}

	_, body = e.req("GET", "/sources/"+id, "", "Cookie", cookie)
	if strings.Count(body, `data-testid="sender"`) != 2 || !strings.Contains(body, "Morning Brew") || !strings.Contains(body, "crew@brew.example") {
		t.Fatalf("newsletters by sender: %s", excerptAround(body, "senders"))
	}
	res, _ = e.req("POST", "/sources/"+id+"/senders", url.Values{"sender": {"crew@brew.example"}, "name": {"Morning Brew"}}.Encode(), "Cookie", cookie)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("follow a sender: %d", res.StatusCode)
	}
	own, _ := strconv.ParseInt(strings.TrimPrefix(res.Header.Get("Location"), "/sources/"), 10, 64)
	waitItems(own, 2)
	_, body = e.req("GET", "/sources", "", "Cookie", cookie)
	if !strings.Contains(body, "Morning Brew") {
		t.Error("the Sources page does not list the sender's source by its name")
	}
	_, body = e.req("GET", "/sources/"+id, "", "Cookie", cookie)
	if !strings.Contains(body, "Its own source") {
		t.Error("the folder's page does not link the sender to its own source")
	}
	// The folder's source leaves that sender's new mail to it.
	s.Add(t, "Newsletters", mailtest.Newsletter("crew@brew.example", "Morning Brew", 5, time.Now(), "A new issue."), time.Now())
	s.Add(t, "Newsletters", mailtest.Newsletter("news@weekly.example", "The Weekly", 6, time.Now(), "A new issue."), time.Now())
	if _, err := srcs.Refresh(ctx, e.ann.ID, src.ID, own); err != nil {
		t.Fatal(err)
	}
	waitItems(own, 3)
	waitItems(src.ID, 5)
	if seen, _ := s.Seen(t, "Newsletters"); seen == 0 {
		t.Error("mark read was saved but nothing was marked read")
	}
}
