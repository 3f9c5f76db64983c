package mail_test

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mmcdole/gofeed"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/mail"
	"github.com/morningdeck/morningdeck/app/render"
)

// evil is what a hostile feed, LLM or user can put into a report's texts.
const evil = `<script>alert(1)</script><img src=x onerror=alert(2)>"'><a href="javascript:alert(3)">x</a>`

func hostileReport() (*app.Briefing, *app.Report) {
	now := time.Date(2026, 11, 23, 7, 0, 0, 0, time.UTC)
	b := &app.Briefing{ID: 7, Name: "Morning " + evil, Timezone: "UTC"}
	r := &app.Report{ID: 3, BriefingID: 7, GeneratedAt: now, PeriodStart: now.Add(-24 * time.Hour), PeriodEnd: now, Overview: "Overview " + evil,
		Items: []app.ReportItem{{Rank: 1, Title: "Title " + evil, Link: "javascript:alert(4)", Summary: "Summary " + evil, Score: 80,
			ScoreReasoning: "Reason " + evil, SourceName: "Source " + evil,
			AlsoCoveredBy: []app.Coverage{{Title: "Other " + evil, Link: "data:text/html,<script>alert(5)</script>", Source: evil}}}}}
	return b, r
}

var (
	scriptTag  = regexp.MustCompile(`(?i)<script`)
	handler    = regexp.MustCompile(`(?i)<[^>]+\son[a-z]+\s*=`)
	badHref    = regexp.MustCompile(`(?i)(href|src)\s*=\s*["']?\s*(javascript|data|vbscript):`)
	rawImgOpen = regexp.MustCompile(`(?i)<img`)
)

func noActiveContent(t *testing.T, where, html string) {
	t.Helper()
	for _, re := range []*regexp.Regexp{scriptTag, handler, badHref, rawImgOpen} {
		if m := re.FindString(html); m != "" {
			t.Errorf("%s carries %q", where, m)
		}
	}
}

func TestHostileTextStaysText(t *testing.T) {
	b, r := hostileReport()

	t.Run("the email's HTML and text parts", func(t *testing.T) {
		m := mail.ComposeWith(b, r, 1, "ann@example.com", "http://127.0.0.1:7777", "")
		noActiveContent(t, "email HTML", m.HTML)
		if !strings.Contains(m.HTML, "&lt;script&gt;") {
			t.Error("the email HTML lost the escaped text instead of showing it")
		}
		// The texts may say "javascript:" as words; the item links must not become links.
		if strings.Contains(m.Text, "javascript:alert(4)") || strings.Contains(m.Text, "data:text/html") {
			t.Error("the text part carries a javascript: or data: link")
		}
	})

	t.Run("the Markdown export", func(t *testing.T) {
		md := render.ReportMarkdown(b, r, time.UTC)
		if scriptTag.MatchString(md) || strings.Contains(md, "](javascript:") || strings.Contains(md, "](data:") || strings.Contains(md, "<img") {
			t.Errorf("markdown:\n%s", md)
		}
	})

	t.Run("the printable HTML and the Atom feed, whose entries a feed reader renders", func(t *testing.T) {
		noActiveContent(t, "report HTML", render.ReportHTML(b, r, time.UTC, render.HTMLStyle{}))
		out, err := render.ReportsAtom(b, []*app.Report{r}, "http://127.0.0.1:7777/", "", time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		feed, err := gofeed.NewParser().ParseString(string(out))
		if err != nil {
			t.Fatalf("the feed does not parse: %v", err)
		}
		if strings.Contains(string(out), `type="html"`) && strings.Contains(string(out), "<title type=\"html\"") {
			t.Error("titles are sent as HTML")
		}
		for _, it := range feed.Items {
			// Titles are plain text (Atom's default type): a reader shows the characters as they are.
			noActiveContent(t, "Atom entry content", it.Content)
			if strings.HasPrefix(strings.ToLower(it.Link), "javascript:") {
				t.Errorf("entry link %q", it.Link)
			}
		}
	})
}

// rawSMTP runs a TCP server that answers each connection with behave.
func rawSMTP(t *testing.T, behave func(c net.Conn)) (string, int) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); behave(c) }()
		}
	}()
	addr := ln.Addr().(*net.TCPAddr)
	return addr.IP.String(), addr.Port
}

func TestMisbehavingSMTPServers(t *testing.T) {
	b, r := hostileReport()
	msg := mail.ComposeWith(b, r, 1, "ann@example.com", "http://127.0.0.1:7777", "")
	for _, tc := range []struct {
		name   string
		behave func(c net.Conn)
	}{
		{"garbage instead of a greeting", func(c net.Conn) { _, _ = c.Write([]byte("HELLO?? I am not a mail server\r\n")) }},
		{"closes the connection at once", func(c net.Conn) {}},
		{"closes it in the middle of the message", func(c net.Conn) {
			rd := bufio.NewReader(c)
			_, _ = c.Write([]byte("220 mx ready\r\n"))
			for {
				line, err := rd.ReadString('\n')
				if err != nil {
					return
				}
				switch cmd := strings.ToUpper(strings.TrimSpace(line)); {
				case strings.HasPrefix(cmd, "EHLO"), strings.HasPrefix(cmd, "HELO"):
					_, _ = c.Write([]byte("250 mx\r\n"))
				case strings.HasPrefix(cmd, "DATA"):
					_, _ = c.Write([]byte("354 go on\r\n"))
					_, _ = rd.ReadString('\n')
					return // hang up half-way
				default:
					_, _ = c.Write([]byte("250 ok\r\n"))
				}
			}
		}},
		{"never says anything", func(c net.Conn) { time.Sleep(5 * time.Second) }},
		{"an endless reply line", func(c net.Conn) {
			_, _ = c.Write([]byte("220-"))
			chunk := []byte(strings.Repeat("x", 64<<10))
			for range 200 { // 12 MB
				if _, err := c.Write(chunk); err != nil {
					return
				}
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			host, port := rawSMTP(t, tc.behave)
			s := mail.New(mail.Options{Host: host, Port: port, TLS: "none", From: "deck@example.com", Timeout: 2 * time.Second})
			done := make(chan error, 1)
			go func() { done <- s.Send(context.Background(), msg) }()
			select {
			case err := <-done:
				if err == nil {
					t.Fatal("sent to a misbehaving server")
				}
				if !strings.Contains(err.Error(), "SMTP "+host) {
					t.Fatalf("the error does not say which server: %v", err)
				}
				if !regexp.MustCompile(`did not answer within|closed the connection|does not speak SMTP`).MatchString(err.Error()) {
					t.Fatalf("the error does not say what went wrong in words: %v", err)
				}
				t.Logf("error: %v", err)
			case <-time.After(15 * time.Second):
				t.Fatal("Send did not give up")
			}
		})
	}
}

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func ptr[T any](v T) *T { return &v }

func TestEmailGoldens(t *testing.T) {
	end := time.Date(2026, 11, 23, 6, 0, 0, 0, time.UTC)
	b := &app.Briefing{ID: 7, UserID: 1, Name: "Brussels morning", Timezone: "Europe/Brussels"}
	r := &app.Report{ID: 3, BriefingID: 7, GeneratedAt: end, PeriodStart: end.Add(-24 * time.Hour), PeriodEnd: end,
		Overview: "One story from one source (Le Soir), picked from 40 new items. Transport (2) — it's *the* [big] one_.",
		Items: []app.ReportItem{{Rank: 1, ItemID: ptr(int64(41)), SourceName: "Le Soir", Title: "Tram to the airport approved (finally)", Link: "https://lesoir.example/tram",
			Summary: "The council approved the tram line <for real>.", Score: 88, ScoreReasoning: "Matches your focus.",
			AlsoCoveredBy: []app.Coverage{{ItemID: ptr(int64(42)), Title: "Airport tram: yes", Link: "https://bx1.example/tram", Source: "BX1"}}}}}
	m := mail.ComposeWith(b, r, 5, "ann@example.com", "http://deck.example:7777/", "http://deck.example:7777/unsubscribe?b=7&sig=abc&to=ann%40example.com")
	for name, got := range map[string]string{"email.html.golden": m.HTML, "email.txt.golden": m.Text,
		"email.headers.golden": "Subject: " + m.Subject + "\nMessage-ID: " + m.ID + "\nUnsubscribe: " + m.Unsubscribe + fmt.Sprintf("\nOne-click: %v\n", m.OneClick)} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("testdata", name)
			if *update {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to write it)", err)
			}
			if got != string(want) {
				t.Errorf("%s differs from the golden file (go test -update rewrites it after a deliberate change):\n--- got\n%s\n--- want\n%s", name, got, want)
			}
		})
	}
}
