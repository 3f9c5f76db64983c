package feeds_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/feeds"
	"github.com/morningdeck/morningdeck/app/feeds/mailtest"
)

var mailDay = time.Date(2026, 11, 20, 7, 0, 0, 0, time.UTC)

func addIssues(t *testing.T, s *mailtest.Server, folder string, from, to int) {
	for n := from; n <= to; n++ {
		d := mailDay.Add(time.Duration(n) * time.Hour)
		s.Add(t, folder, mailtest.Newsletter("news@weekly.example", "The Weekly", n, d, "Markets moved on the central bank's decision about rates."), d)
	}
}

// TestFetchMail reads a folder over IMAP: the first fetch takes the latest FirstImport
// messages, the next ones what came after, nothing new is NotModified; messages stay unread on
// the server unless the mailbox marks them read.
func TestFetchMail(t *testing.T) {
	s := mailtest.Start(t, "reader@example.org", "app-password-1", "Newsletters")
	addIssues(t, s, "Newsletters", 1, 5)
	m := feeds.NewMail(feeds.MailOptions{Timeout: 10 * time.Second})
	mb := s.Mailbox("Newsletters")
	mb.FirstImport = 3
	ctx := context.Background()

	res, err := m.FetchMail(ctx, mb, s.Password, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 3 || res.Items[0].Title != "Issue 5: Markets moved on the central bank's" || res.Items[2].Title != "Issue 3: Markets moved on the central bank's" {
		t.Fatalf("first import: %d items %v", len(res.Items), titles(res.Items))
	}
	if res.Items[0].GUID != "issue-5.news@weekly.example" || strings.Contains(res.Items[0].CleanContent, "t.news.example") {
		t.Errorf("item: guid %q content %q", res.Items[0].GUID, res.Items[0].CleanContent)
	}
	if seen, _ := s.Seen(t, "Newsletters"); seen != 0 {
		t.Errorf("%d messages marked read on the server; none should be", seen)
	}
	cur := res.ETag
	addIssues(t, s, "Newsletters", 6, 7)
	res, err = m.FetchMail(ctx, mb, s.Password, cur)
	if err != nil {
		t.Fatal(err)
	}
	if got := titles(res.Items); len(got) != 2 || !strings.HasPrefix(got[0], "Issue 7") || !strings.HasPrefix(got[1], "Issue 6") || res.NotModified {
		t.Fatalf("second fetch: %v (not modified %v)", got, res.NotModified)
	}
	res2, err := m.FetchMail(ctx, mb, s.Password, res.ETag)
	if err != nil {
		t.Fatal(err)
	}
	if !res2.NotModified || len(res2.Items) != 0 || res2.ETag != res.ETag {
		t.Errorf("third fetch: not modified %v, %d items, cursor %q → %q", res2.NotModified, len(res2.Items), res.ETag, res2.ETag)
	}
	if seen, total := s.Seen(t, "Newsletters"); seen != 0 || total != 7 {
		t.Errorf("server: %d of %d seen; nothing is marked, moved or deleted", seen, total)
	}

	// Marking read is an option.
	mb.MarkRead = true
	if _, err := m.FetchMail(ctx, mb, s.Password, ""); err != nil {
		t.Fatal(err)
	}
	if seen, total := s.Seen(t, "Newsletters"); seen != 3 || total != 7 {
		t.Errorf("mark read: %d of %d seen, want 3 of 7", seen, total)
	}
}

// TestFetchMailTLS reads over implicit TLS and over STARTTLS.
func TestFetchMailTLS(t *testing.T) {
	s := mailtest.Start(t, "reader@example.org", "pw")
	addIssues(t, s, "INBOX", 1, 2)
	m := feeds.NewMail(feeds.MailOptions{Timeout: 10 * time.Second, RootCAs: s.RootCAs})
	for _, mb := range []app.Mailbox{
		{Host: "localhost", Port: s.TLSPort, Security: app.MailTLS, Username: s.User, Folder: "INBOX", FirstImport: 50},
		{Host: "localhost", Port: s.Port, Security: app.MailStartTLS, Username: s.User, Folder: "INBOX", FirstImport: 50},
	} {
		res, err := m.FetchMail(context.Background(), mb, s.Password, "")
		if err != nil {
			t.Fatalf("%s: %v", mb.Security, err)
		}
		if len(res.Items) != 2 {
			t.Errorf("%s: %d items", mb.Security, len(res.Items))
		}
	}
}

// TestFetchMailPaged: a backlog larger than a fetch's page is read a page per fetch, by UID
// ranges, in order, none missed or repeated.
func TestFetchMailPaged(t *testing.T) {
	s := mailtest.Start(t, "u", "p")
	addIssues(t, s, "INBOX", 1, 1)
	m := feeds.NewMail(feeds.MailOptions{Timeout: 10 * time.Second, PerFetch: 10})
	mb := s.Mailbox("INBOX")
	res, err := m.FetchMail(context.Background(), mb, "p", "")
	if err != nil || len(res.Items) != 1 {
		t.Fatalf("first: %v %v", err, res)
	}
	addIssues(t, s, "INBOX", 2, 1201)
	seen := map[string]bool{}
	cur := res.ETag
	for i := 0; i < 200; i++ {
		res, err := m.FetchMail(context.Background(), mb, "p", cur)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Items) > 10 {
			t.Fatalf("a page of %d items", len(res.Items))
		}
		for _, it := range res.Items {
			if seen[it.GUID] {
				t.Fatalf("%s read twice", it.GUID)
			}
			seen[it.GUID] = true
		}
		cur = res.ETag
		if res.NotModified {
			break
		}
	}
	if len(seen) != 1200 {
		t.Errorf("read %d of the 1,200 new messages", len(seen))
	}
}

// TestCheckMailSaysWhatFailed: each way a mailbox can be wrong is said in plain words.
func TestCheckMailSaysWhatFailed(t *testing.T) {
	s := mailtest.Start(t, "reader@example.org", "right")
	closedPort := 9 // discard: nothing listens (a port freed by closing a listener may be another test's by now)
	m := feeds.NewMail(feeds.MailOptions{Timeout: 5 * time.Second, RootCAs: s.RootCAs})
	good := s.Mailbox("INBOX")
	for _, tc := range []struct {
		name     string
		mb       func(app.Mailbox) app.Mailbox
		password string
		says     string
		kind     app.FetchFailure
	}{
		{"host not found", func(m app.Mailbox) app.Mailbox {
			m.Host, m.Security = "imap.no-such-host.invalid", app.MailTLS
			return m
		}, "right", "could not be found: check its name", app.FailureDNS},
		{"connection refused", func(m app.Mailbox) app.Mailbox { m.Port = closedPort; return m }, "right", "refused the connection", app.FailureConnect},
		{"TLS to a plain port", func(m app.Mailbox) app.Mailbox { m.Host, m.Security = "localhost", app.MailTLS; return m }, "right", "The secure connection (TLS)", app.FailureTLS},
		{"login refused", func(m app.Mailbox) app.Mailbox { return m }, "wrong", "refused the login of reader@example.org: check the user name and the password", app.FailureHTTPStatus},
		{"no such folder", func(m app.Mailbox) app.Mailbox { m.Folder = "Newsletterz"; return m }, "right", `There is no folder "Newsletterz"`, app.FailureHTTPStatus},
		{"plain to another machine", func(m app.Mailbox) app.Mailbox { m.Host = "imap.example.com"; return m }, "right", "only to this machine", app.FailureBlocked},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := m.CheckMail(context.Background(), tc.mb(good), tc.password)
			var fe *app.FetchError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v (%T), want an *app.FetchError", err, err)
			}
			if !strings.Contains(fe.Message, tc.says) {
				t.Errorf("message %q, want it to say %q", fe.Message, tc.says)
			}
			if tc.kind != app.FailureOther && app.FetchFailureOf(err) != tc.kind {
				t.Errorf("kind %q, want %q", app.FetchFailureOf(err), tc.kind)
			}
			if strings.Contains(fe.Message, "right") || strings.Contains(fe.Message, "wrong") {
				t.Errorf("the message shows the password: %q", fe.Message)
			}
		})
	}
	if err := m.CheckMail(context.Background(), good, "right"); err != nil {
		t.Errorf("a right mailbox: %v", err)
	}
	// A certificate this machine does not trust (the system's roots, not the test's).
	untrusted := feeds.NewMail(feeds.MailOptions{Timeout: 5 * time.Second})
	tlsBox := app.Mailbox{Host: "localhost", Port: s.TLSPort, Security: app.MailTLS, Username: s.User, Folder: "INBOX"}
	err := untrusted.CheckMail(context.Background(), tlsBox, "right")
	if err == nil || !strings.Contains(err.Error(), "its certificate is signed by an unknown authority") || app.FetchFailureOf(err) != app.FailureTLS {
		t.Errorf("an untrusted certificate: %v (%s)", err, app.FetchFailureOf(err))
	}
}

// countingDial counts the bytes read from the server.
func countingDial(n *atomic.Int64) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return countingConn{c, n}, nil
	}
}

type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.n.Add(int64(n))
	return n, err
}

func titles(items []app.Item) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.Title)
	}
	return out
}
