package feeds_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/feeds"
	"github.com/morningdeck/morningdeck/app/feeds/mailtest"
)

// TestHostileMailDeepNesting: multiparts nested 200 deep are read down to the depth limit and
// no further, quickly, and the text above it is kept.
func TestHostileMailDeepNesting(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("From: Deep <deep@nest.example>\r\nSubject: Nested\r\nMessage-ID: <deep@nest.example>\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"b0\"\r\n\r\n")
	const depth = 200
	for i := 0; i < depth; i++ {
		fmt.Fprintf(&b, "--b%d\r\n", i)
		if i == 1 {
			b.WriteString("Content-Type: text/plain\r\n\r\nShallow words everyone can read.\r\n")
			fmt.Fprintf(&b, "--b%d\r\n", i)
		}
		fmt.Fprintf(&b, "Content-Type: multipart/mixed; boundary=\"b%d\"\r\n\r\n", i+1)
	}
	fmt.Fprintf(&b, "--b%d\r\nContent-Type: text/html\r\n\r\n<p>Deepest secret words.</p>\r\n", depth)
	for i := depth; i >= 0; i-- {
		fmt.Fprintf(&b, "--b%d--\r\n", i)
	}
	start := time.Now()
	it, err := feeds.MailItem(&b, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(it.Text, "Shallow words") || strings.Contains(it.Text+it.CleanContent, "Deepest secret") {
		t.Errorf("text %q: the shallow part is kept, the one past the depth limit is not read", it.Text)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
}

// TestHostileMailHugeAttachment: a newsletter with a 50 MB attachment is read over IMAP
// without the attachment: its text part is fetched alone (BODYSTRUCTURE), far less than the
// message comes over the wire, and nothing of the attachment is in the item.
func TestHostileMailHugeAttachment(t *testing.T) {
	s := mailtest.Start(t, "u", "p")
	attachment := bytes.Repeat([]byte("ATTACHMENTDATA-"), 50<<20/15)
	var b bytes.Buffer
	b.WriteString("From: Big Sender <big@huge.example>\r\nSubject: Annual report attached\r\nDate: Fri, 27 Nov 2026 06:00:00 +0000\r\nMessage-ID: <big-1@huge.example>\r\n" +
		"MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"mix\"\r\n\r\n--mix\r\nContent-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n" +
		"<p>The annual report is attached; revenue grew 12=25 this year.</p>\r\n--mix\r\nContent-Type: application/pdf; name=\"report.pdf\"\r\n" +
		"Content-Disposition: attachment; filename=\"report.pdf\"\r\nContent-Transfer-Encoding: base64\r\n\r\n")
	enc := base64.StdEncoding.EncodeToString(attachment)
	for len(enc) > 76 {
		b.WriteString(enc[:76] + "\r\n")
		enc = enc[76:]
	}
	b.WriteString(enc + "\r\n--mix--\r\n")
	if b.Len() < 50<<20 {
		t.Fatalf("the message is %d bytes", b.Len())
	}
	s.Add(t, "INBOX", b.Bytes(), time.Now())
	var read atomic.Int64
	m := feeds.NewMail(feeds.MailOptions{Timeout: 20 * time.Second, Dial: countingDial(&read)})
	res, err := m.FetchMail(context.Background(), s.Mailbox("INBOX"), "p", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 1 {
		t.Fatalf("%d items", len(res.Items))
	}
	it := res.Items[0]
	if it.Title != "Annual report attached" || !strings.Contains(it.Text, "revenue grew 12% this year") {
		t.Errorf("item %q: %q", it.Title, it.Text)
	}
	if strings.Contains(it.CleanContent+it.Text, "ATTACHMENT") || strings.Contains(it.CleanContent, "QVRUQUNI") {
		t.Error("the attachment is in the item")
	}
	if n := read.Load(); n > 1<<20 {
		t.Errorf("%d bytes read from the server for a 50 MB message; its attachment should not be fetched", n)
	}
}

// stallingServer accepts connections and, after greeting when greet is set, never answers.
func stallingServer(t *testing.T, greet bool) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				if greet {
					fmt.Fprintf(c, "* OK [CAPABILITY IMAP4rev1] ready\r\n")
				}
				r := bufio.NewReader(c)
				for {
					if _, err := r.ReadString('\n'); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port
}

// TestHostileMailStallingServer: a server that stops answering (before its greeting, or after
// it) fails the fetch within its deadline with a message that says so.
func TestHostileMailStallingServer(t *testing.T) {
	for _, greet := range []bool{false, true} {
		port := stallingServer(t, greet)
		m := feeds.NewMail(feeds.MailOptions{Timeout: time.Second})
		mb := app.Mailbox{Host: "127.0.0.1", Port: port, Security: app.MailPlain, Username: "u", Folder: "INBOX", FirstImport: 50}
		start := time.Now()
		_, err := m.FetchMail(context.Background(), mb, "p", "")
		took := time.Since(start)
		if err == nil || !strings.Contains(err.Error(), "stopped answering") || app.FetchFailureOf(err) != app.FailureTimeout {
			t.Errorf("greet %v: error %v (%s)", greet, err, app.FetchFailureOf(err))
		}
		if took > 3*time.Second {
			t.Errorf("greet %v: failed after %v; the deadline is 1 s", greet, took)
		}
	}
}

// TestHostileMailBrokenHeaders: messages whose header cannot be read (a line that is no header
// field, no Message-ID) are each still an item, from what the server's envelope says.
func TestHostileMailBrokenHeaders(t *testing.T) {
	s := mailtest.Start(t, "u", "p")
	for i := 0; i < 3; i++ {
		s.Add(t, "INBOX", []byte(fmt.Sprintf("From: Sloppy <sloppy@bulk.example>\r\nSubject: Weekly %d\r\nthis line is no header field\r\n\r\n<p>Body %d</p>\r\n", i, i)), time.Now())
	}
	m := feeds.NewMail(feeds.MailOptions{Timeout: 10 * time.Second})
	res, err := m.FetchMail(context.Background(), s.Mailbox("INBOX"), "p", "")
	if err != nil {
		t.Fatal(err)
	}
	guids := map[string]bool{}
	for _, it := range res.Items {
		guids[it.GUID] = true
	}
	if len(res.Items) != 3 || len(guids) != 3 {
		t.Errorf("%d items, %d GUIDs: %v", len(res.Items), len(guids), titles(res.Items))
	}
}

// TestHostileMailLargeFolder: the first import of a folder of 20,000 messages reads its latest
// 50, by sequence numbers, and never lists the folder: what comes over the wire does not grow
// with the folder. One sender's source finds its sender's latest messages by UID SEARCH.
func TestHostileMailLargeFolder(t *testing.T) {
	s := mailtest.Start(t, "u", "p")
	const n = 20000
	msg := func(i int, from string) []byte {
		return []byte(fmt.Sprintf("From: <%s>\r\nSubject: Note %d\r\nMessage-ID: <n%d@big.example>\r\n\r\nShort note %d.\r\n", from, i, i, i))
	}
	for i := 1; i <= n; i++ {
		from := "bulk@big.example"
		if i%1000 == 0 {
			from = "rare@big.example"
		}
		s.Add(t, "INBOX", msg(i, from), time.Now())
	}
	var read atomic.Int64
	m := feeds.NewMail(feeds.MailOptions{Timeout: 20 * time.Second, Dial: countingDial(&read)})
	res, err := m.FetchMail(context.Background(), s.Mailbox("INBOX"), "p", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 50 || res.Items[0].Title != "Note 20000" || res.Items[49].Title != "Note 19951" {
		t.Fatalf("%d items: %v", len(res.Items), titles(res.Items)[:min(3, len(res.Items))])
	}
	if got := read.Load(); got > 200<<10 {
		t.Errorf("%d bytes read for a first import of 50 of %d messages", got, n)
	}
	// A later fetch with nothing new: one look at UIDNEXT.
	read.Store(0)
	again, err := m.FetchMail(context.Background(), s.Mailbox("INBOX"), "p", res.ETag)
	if err != nil || !again.NotModified {
		t.Fatalf("a fetch with nothing new: %v %+v", err, again)
	}
	if got := read.Load(); got > 4<<10 {
		t.Errorf("%d bytes read for a fetch with nothing new", got)
	}
	mb := s.Mailbox("INBOX")
	mb.Sender, mb.FirstImport = "rare@big.example", 5
	res, err = m.FetchMail(context.Background(), mb, "p", "")
	if err != nil {
		t.Fatal(err)
	}
	if got := titles(res.Items); len(got) != 5 || got[0] != "Note 20000" || got[4] != "Note 16000" {
		t.Errorf("one sender's first import: %v", got)
	}
}

// TestHostileMailFetchBudget: a fetch reads at most MaxFetchBytes of messages; a first import
// keeps the newest within it, later fetches go on where the last stopped, none lost or repeated.
func TestHostileMailFetchBudget(t *testing.T) {
	s := mailtest.Start(t, "u", "p")
	body := strings.Repeat("A long story about rates and chips. ", 50) // ~1.8 KB a message
	for i := 1; i <= 10; i++ {
		s.Add(t, "INBOX", mailtest.Newsletter("a@b.example", "A", i, time.Now().Add(time.Duration(i)*time.Minute), body), time.Now())
	}
	size := int64(len(mailtest.Newsletter("a@b.example", "A", 10, time.Now(), body)))
	m := feeds.NewMail(feeds.MailOptions{Timeout: 10 * time.Second, MaxFetchBytes: 3*size + size/2}) // room for three
	res, err := m.FetchMail(context.Background(), s.Mailbox("INBOX"), "p", "")
	if err != nil {
		t.Fatal(err)
	}
	if got := titles(res.Items); len(got) != 3 || !strings.HasPrefix(got[0], "Issue 10") || !strings.HasPrefix(got[2], "Issue 8") {
		t.Fatalf("first import within the room of three: %v", got)
	}
	for i := 11; i <= 20; i++ {
		s.Add(t, "INBOX", mailtest.Newsletter("a@b.example", "A", i, time.Now().Add(time.Duration(i)*time.Minute), body), time.Now())
	}
	seen := map[string]bool{}
	cur := res.ETag
	for fetches := 0; fetches < 10; fetches++ {
		res, err := m.FetchMail(context.Background(), s.Mailbox("INBOX"), "p", cur)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Items) > 3 {
			t.Fatalf("a fetch of %d items past its budget", len(res.Items))
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
	if len(seen) != 10 {
		t.Errorf("the 10 new messages were read as %d items", len(seen))
	}
}

// writeCountingDial counts the bytes the client writes (its commands).
func writeCountingDial(n *atomic.Int64) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return writeCountingConn{c, n}, nil
	}
}

type writeCountingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c writeCountingConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.n.Add(int64(n))
	return n, err
}

// TestHostileMailUIDGap: after 40,000 messages came and went (deleted on the server), the next
// fetch crosses the gap of UIDs in a few widening windows and finds the three new ones.
func TestHostileMailUIDGap(t *testing.T) {
	s := mailtest.Start(t, "u", "p")
	s.Add(t, "INBOX", mailtest.Newsletter("a@b.example", "A", 0, time.Now(), "First."), time.Now())
	m := feeds.NewMail(feeds.MailOptions{Timeout: 20 * time.Second})
	res, err := m.FetchMail(context.Background(), s.Mailbox("INBOX"), "p", "")
	if err != nil || len(res.Items) != 1 {
		t.Fatalf("%v %v", err, res)
	}
	const gone = 40000
	for i := 1; i <= gone+3; i++ {
		s.Add(t, "INBOX", []byte(fmt.Sprintf("From: <a@b.example>\r\nSubject: N%d\r\nMessage-ID: <g%d@b.example>\r\n\r\nx\r\n", i, i)), time.Now())
	}
	s.Expunge(t, "INBOX", 2, gone+1) // the sequence numbers of the 40,000 first new ones
	var wrote atomic.Int64
	m = feeds.NewMail(feeds.MailOptions{Timeout: 20 * time.Second, Dial: writeCountingDial(&wrote)})
	res, err = m.FetchMail(context.Background(), s.Mailbox("INBOX"), "p", res.ETag)
	if err != nil {
		t.Fatal(err)
	}
	if got := titles(res.Items); len(got) != 3 || got[0] != fmt.Sprintf("N%d", gone+3) {
		t.Fatalf("after the gap: %v", got)
	}
	// 40,000 UIDs in windows of 500 were 80 commands; widening ones take a dozen.
	if n := wrote.Load(); n > 3000 {
		t.Errorf("the client wrote %d bytes of commands to cross the gap", n)
	}
}
