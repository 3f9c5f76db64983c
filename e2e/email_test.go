package e2e_test

import (
	"database/sql"
	"encoding/base64"
	"io"
	"net"
	"net/http"
	"net/mail"
	"net/url"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app/feeds/feedtest"
)

func TestEmailEndToEnd(t *testing.T) {
	t.Run("a kill -9 while sending: after the restart the report is delivered exactly once", func(t *testing.T) {
		box := newMailbox(t)
		box.hangFirst.Store(true)
		farm := feedtest.NewFarm(1, 3)
		defer farm.Close()
		host, port, _ := net.SplitHostPort(box.addr)
		flags := []string{"--smtp-host", host, "--smtp-port", port, "--smtp-tls", "none", "--smtp-from", "deck@example.com", "--process-job-timeout", "2s"}
		dir := t.TempDir()
		mustRun(t, dir, "source", "add", farm.URL(0), "--type", "rss")
		mustRun(t, dir, "fetch")
		base, srv := startServer(t, dir, flags...)
		res, err := http.Post(base+"api/briefings", "application/json", strings.NewReader(`{"name": "Morning", "time": "07:00", "emailEnabled": true, "recipients": ["ann@example.com"]}`))
		if err != nil || res.StatusCode != 201 {
			t.Fatalf("create briefing: %v %v", err, res.Status)
		}
		res.Body.Close()
		if res, err := http.Post(base+"api/briefings/1/run", "application/json", nil); err != nil || res.StatusCode != 202 {
			t.Fatalf("run: %v", err)
		}
		select {
		case <-box.hung:
		case <-time.After(patience):
			t.Fatal("the email was never sent")
		}
		_ = srv.Process.Signal(syscall.SIGKILL)
		_ = srv.Wait()
		base, _ = startServer(t, dir, flags...)
		db, err := sql.Open("sqlite", filepath.Join(dir, "morningdeck.db")+"?mode=ro")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		deadline := time.Now().Add(30 * time.Second)
		for {
			var status string
			_ = db.QueryRow(`select status from deliveries`).Scan(&status)
			if status == "SENT" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("delivery %q after restart", status)
			}
			time.Sleep(100 * time.Millisecond)
		}
		time.Sleep(500 * time.Millisecond)
		if got := box.messages(); len(got) != 1 {
			t.Fatalf("%d emails delivered, want exactly 1", len(got))
		}
		// The settings page's test email goes through the same server.
		c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		res, err = c.PostForm(base+"settings/test-email", url.Values{"to": {"bob@example.com"}})
		if err != nil || res.StatusCode != 303 {
			t.Fatalf("test email: %v", err)
		}
		if got := box.messages(); len(got) != 2 || !strings.Contains(got[1], "Morning Deck test email") {
			t.Fatalf("test email not received: %d messages", len(got))
		}
		// Something that is not an address is named as such, and nothing is sent.
		res, err = c.PostForm(base+"settings/test-email", url.Values{"to": {"notanemail"}})
		if err != nil || res.StatusCode != 303 {
			t.Fatalf("test email to notanemail: %v", err)
		}
		if flash := flashOf(res); !strings.Contains(flash, `"notanemail" is not an email address`) || len(box.messages()) != 2 {
			t.Fatalf("test email to notanemail: flash %q, %d messages", flash, len(box.messages()))
		}
	})

	t.Run("SMTP set in Settings (no flags) sends the test email; the password is never shown", func(t *testing.T) {
		box := newMailbox(t)
		host, port, _ := net.SplitHostPort(box.addr)
		base, _ := startServer(t, t.TempDir())
		c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		res, err := c.PostForm(base+"settings/email", url.Values{"smtpHost": {host}, "smtpPort": {port}, "smtpTls": {"none"},
			"smtpFrom": {"deck@example.com"}, "smtpUsername": {""}, "smtpPassword": {"hunter2-secret"}})
		if err != nil || res.StatusCode != 303 {
			t.Fatalf("save: %v %v", err, res.Status)
		}
		for _, path := range []string{"settings", "api/settings"} {
			res, err := http.Get(base + path)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if strings.Contains(string(b), "hunter2-secret") {
				t.Fatalf("/%s shows the SMTP password", path)
			}
		}
		if _, err := c.PostForm(base+"settings/test-email", url.Values{"to": {"ann@example.com"}}); err != nil {
			t.Fatal(err)
		}
		if got := box.messages(); len(got) != 1 || !strings.Contains(got[0], "From: <deck@example.com>") && !strings.Contains(got[0], "deck@example.com") {
			t.Fatalf("%d messages: %v", len(got), got)
		}
	})
}

// TestEmailUnsubscribe: a report email carries a signed one-click unsubscribe link (RFC 8058);
// GET shows a confirm page, the mail client's POST turns that recipient off for that briefing
// and says so, and a changed link does nothing.
func TestEmailUnsubscribe(t *testing.T) {
	box := newMailbox(t)
	farm := feedtest.NewFarm(1, 3)
	defer farm.Close()
	host, port, _ := net.SplitHostPort(box.addr)
	dir := t.TempDir()
	mustRun(t, dir, "source", "add", farm.URL(0), "--type", "rss")
	mustRun(t, dir, "fetch")
	base, _ := startServer(t, dir, "--smtp-host", host, "--smtp-port", port, "--smtp-tls", "none", "--smtp-from", "deck@example.com")
	res, err := http.Post(base+"api/briefings", "application/json", strings.NewReader(`{"name": "Morning", "time": "07:00", "emailEnabled": true, "recipients": ["ann@example.com", "bob@example.com"]}`))
	if err != nil || res.StatusCode != 201 {
		t.Fatalf("create briefing: %v %v", err, res.Status)
	}
	res.Body.Close()
	if res, err := http.Post(base+"api/briefings/1/run", "application/json", nil); err != nil || res.StatusCode != 202 {
		t.Fatalf("run: %v", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(box.messages()) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("%d emails, want 2", len(box.messages()))
		}
		time.Sleep(100 * time.Millisecond)
	}
	var raw string
	for _, m := range box.messages() {
		if strings.Contains(m, "ann@example.com") && strings.Contains(m, "To: <ann@example.com>") {
			raw = m
		}
	}
	if raw == "" {
		raw = box.messages()[0]
	}
	msg, err := mail.ReadMessage(strings.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if got := msg.Header.Get("List-Unsubscribe-Post"); got != "List-Unsubscribe=One-Click" {
		t.Fatalf("List-Unsubscribe-Post %q", got)
	}
	lu := msg.Header.Get("List-Unsubscribe")
	link := strings.TrimSuffix(strings.TrimPrefix(lu, "<"), ">")
	if !strings.HasPrefix(link, "http://") || !strings.Contains(link, "/unsubscribe?") {
		t.Fatalf("List-Unsubscribe %q is not an http link", lu)
	}
	// The server listens on a port picked at start (--addr 127.0.0.1:0): the email's links carry
	// the port really bound (no --base-url is set).
	if !strings.HasPrefix(link, base+"unsubscribe?") || !strings.Contains(raw, base+"reports/") {
		t.Fatalf("the email's links do not point at the server (%s): List-Unsubscribe %q", base, link)
	}
	to := msg.Header.Get("To")
	if strings.Contains(raw, `\(`) {
		t.Error("the email carries Markdown escapes")
	}
	// A changed signature is refused and changes nothing.
	u, _ := url.Parse(link)
	q := u.Query()
	q.Set("sig", "x"+q.Get("sig"))
	bad := *u
	bad.RawQuery = q.Encode()
	res, err = http.Post(bad.String(), "application/x-www-form-urlencoded", strings.NewReader("List-Unsubscribe=One-Click"))
	if err != nil {
		t.Fatalf("a tampered link %s: %v", bad.String(), err)
	}
	res.Body.Close()
	if res.StatusCode != 404 {
		t.Fatalf("a tampered link: %s", res.Status)
	}
	// GET asks to confirm and changes nothing.
	res, err = http.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(body), "Stop emailing") || !strings.Contains(string(body), "Morning") {
		t.Fatalf("confirm page %s:\n%s", res.Status, body)
	}
	recipients := func() string {
		res, err := http.Get(base + "api/briefings/1")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return string(b)
	}
	if !strings.Contains(recipients(), "ann@example.com") || !strings.Contains(recipients(), "bob@example.com") {
		t.Fatalf("a GET or a tampered link unsubscribed someone: %s", recipients())
	}
	// The mail client's one-click POST (RFC 8058) unsubscribes that recipient only.
	res, err = http.Post(link, "application/x-www-form-urlencoded", strings.NewReader("List-Unsubscribe=One-Click"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(body), "is unsubscribed") {
		t.Fatalf("one-click POST %s:\n%s", res.Status, body)
	}
	addr, _ := mail.ParseAddress(to)
	other := "bob@example.com"
	if addr.Address == other {
		other = "ann@example.com"
	}
	if got := recipients(); strings.Contains(got, `"`+addr.Address+`"`) || !strings.Contains(got, other) || !strings.Contains(got, `"emailEnabled":true`) {
		t.Fatalf("after unsubscribing %s: %s", addr.Address, got)
	}
}

// TestEmailBaseURL: with --base-url set, the email's links use it, not the address the server
// listens on.
func TestEmailBaseURL(t *testing.T) {
	box := newMailbox(t)
	farm := feedtest.NewFarm(1, 3)
	defer farm.Close()
	host, port, _ := net.SplitHostPort(box.addr)
	dir := t.TempDir()
	mustRun(t, dir, "source", "add", farm.URL(0), "--type", "rss")
	mustRun(t, dir, "fetch")
	base, _ := startServer(t, dir, "--smtp-host", host, "--smtp-port", port, "--smtp-tls", "none", "--smtp-from", "deck@example.com",
		"--base-url", "https://deck.example.org/")
	res, err := http.Post(base+"api/briefings", "application/json", strings.NewReader(`{"name": "Morning", "time": "07:00", "emailEnabled": true, "recipients": ["ann@example.com"]}`))
	if err != nil || res.StatusCode != 201 {
		t.Fatalf("create briefing: %v %v", err, res.Status)
	}
	res.Body.Close()
	if res, err := http.Post(base+"api/briefings/1/run", "application/json", nil); err != nil || res.StatusCode != 202 {
		t.Fatalf("run: %v", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(box.messages()) < 1 {
		if time.Now().After(deadline) {
			t.Fatal("no email")
		}
		time.Sleep(100 * time.Millisecond)
	}
	raw := box.messages()[0]
	if !strings.Contains(raw, "https://deck.example.org/reports/1") || strings.Contains(raw, base) {
		t.Fatalf("the email's links do not use --base-url:\n%s", raw)
	}
}

// flashOf is the flash message a redirect of the web app carries (its cookie), decoded.
func flashOf(res *http.Response) string {
	for _, c := range res.Cookies() {
		if c.Name == "md_flash" {
			v, _ := base64.RawURLEncoding.DecodeString(c.Value)
			return string(v)
		}
	}
	return ""
}
