package mail_test

import (
	"context"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/feeds"
	"github.com/morningdeck/morningdeck/app/mail"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

// mailbox is a real SMTP server in the test that keeps the envelope senders and the messages.
type mailbox struct {
	host  string
	port  int
	conns atomic.Int64
	mu    sync.Mutex
	froms []string
	msgs  []string
}

func newMailbox(t *testing.T) *mailbox {
	t.Helper()
	m := &mailbox{}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { m.conns.Add(1); return &session{m: m}, nil }))
	srv.Domain, srv.AllowInsecureAuth = "localhost", true
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(l.Addr().String())
	m.host = host
	m.port, _ = strconv.Atoi(port)
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return m
}

type session struct{ m *mailbox }

func (s *session) Reset()        {}
func (s *session) Logout() error { return nil }
func (s *session) AuthMechanisms() []string {
	return []string{"PLAIN"}
}
func (s *session) Mail(from string, _ *smtp.MailOptions) error {
	s.m.mu.Lock()
	s.m.froms = append(s.m.froms, from)
	s.m.mu.Unlock()
	return nil
}
func (s *session) Rcpt(string, *smtp.RcptOptions) error { return nil }
func (s *session) Data(r io.Reader) error {
	b, _ := io.ReadAll(r)
	s.m.mu.Lock()
	s.m.msgs = append(s.m.msgs, string(b))
	s.m.mu.Unlock()
	return nil
}

func (m *mailbox) sent() ([]string, []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.froms...), append([]string(nil), m.msgs...)
}

// exposedMailer is main.go's wiring of an exposed app: the operator's SMTP server, two users
// on a real database, the fetch SSRF guard on the servers users choose.
func exposedMailer(t *testing.T, op *mailbox) (*mail.Mailer, int64, int64, func(int64, app.SettingsUpdate)) {
	t.Helper()
	db := sqlitetest.New(t)
	ctx := context.Background()
	admin, err := db.CreateUser(ctx, "admin", "x", true)
	if err != nil {
		t.Fatal(err)
	}
	second, err := db.CreateUser(ctx, "second", "x", false)
	if err != nil {
		t.Fatal(err)
	}
	m := &mail.Mailer{Default: mail.Options{Host: op.host, Port: op.port, TLS: "none", From: "deck@operator.example", Timeout: 5 * time.Second},
		Settings: db, BaseURL: "http://deck.example", Dial: feeds.Guard{}.Dialer(0).DialContext, Exposed: true}
	set := func(userID int64, u app.SettingsUpdate) {
		t.Helper()
		if err := u.Validate(); err != nil {
			t.Fatal(err)
		}
		if _, err := db.UpdateSettings(ctx, userID, u); err != nil {
			t.Fatal(err)
		}
	}
	return m, admin.ID, second.ID, set
}

// A user without their own SMTP server sends from the operator's address, whatever From they set.
func TestExposedFromForcedOnOperatorServer(t *testing.T) {
	ctx := context.Background()
	op := newMailbox(t)
	m, admin, second, set := exposedMailer(t, op)
	set(second, app.SettingsUpdate{SMTPFrom: ptr("ceo@bank.example"), SMTPTLS: ptr("tls")})
	if err := m.SendTest(ctx, second, "victim@example.com"); err != nil {
		t.Fatal(err)
	}
	if err := m.SendTest(ctx, admin, "ann@example.com"); err != nil {
		t.Fatal(err)
	}
	froms, msgs := op.sent()
	if len(msgs) != 2 {
		t.Fatalf("%d messages", len(msgs))
	}
	for i, f := range froms {
		if f != "deck@operator.example" || strings.Contains(msgs[i], "bank.example") {
			t.Errorf("message %d went from %q:\n%s", i, f, msgs[i])
		}
	}
}

// A user's SMTP host cannot reach this machine or its network while exposed (no port scanning),
// and the operator's own server, on loopback, still works.
func TestExposedSMTPHostGuarded(t *testing.T) {
	ctx := context.Background()
	op := newMailbox(t)
	internal := newMailbox(t)
	m, admin, second, set := exposedMailer(t, op)
	for _, host := range []string{internal.host, "localhost", "10.0.0.1", "169.254.169.254"} {
		set(second, app.SettingsUpdate{SMTPHost: ptr(host), SMTPPort: ptr(internal.port), SMTPTLS: ptr("none"), SMTPUsername: ptr("me"), SMTPPassword: ptr("pw")})
		err := m.SendTest(ctx, second, "ann@example.com")
		if err == nil || !strings.Contains(err.Error(), "private or local address") {
			t.Errorf("SMTP host %s: error %v, want the guard's refusal", host, err)
		}
	}
	if n := internal.conns.Load(); n != 0 {
		t.Errorf("the internal SMTP server was connected to %d times", n)
	}
	if err := m.SendTest(ctx, admin, "ann@example.com"); err != nil {
		t.Errorf("operator's server: %v", err)
	}
}

// Recipients: no line breaks or control characters (header injection), at most MaxRecipients.
func TestBriefingRecipientsBounded(t *testing.T) {
	valid := func(rs ...string) error {
		b := &app.Briefing{UserID: 1, Name: "Morning", Time: "07:00", Timezone: "UTC", EmailEnabled: true, Recipients: rs}
		return b.Validate()
	}
	if err := valid("ann@example.com", "bob@example.org"); err != nil {
		t.Fatal(err)
	}
	for _, r := range []string{"ann@example.com\r\nBcc: all@example.com", "ann@example.com\nX: y", "ann@exa\tmple.com", "ann@example.com\x00", "Ann <ann@example.com>", "ann@example.com, bob@example.com"} {
		if err := valid(r); err == nil {
			t.Errorf("%q accepted", r)
		}
	}
	many := make([]string, app.MaxRecipients+1)
	for i := range many {
		many[i] = "r" + strconv.Itoa(i) + "@example.com"
	}
	if err := valid(many[:app.MaxRecipients]...); err != nil {
		t.Errorf("%d recipients: %v", app.MaxRecipients, err)
	}
	err := valid(many...)
	if err == nil || !strings.Contains(err.Error(), "at most 20") {
		t.Errorf("%d recipients: %v, want a clear refusal", len(many), err)
	}
}

// In local mode the one user is the operator: their From applies on the configured server.
func TestLocalModeFromApplies(t *testing.T) {
	op := newMailbox(t)
	m, admin, _, set := exposedMailer(t, op)
	m.Dial, m.Exposed = nil, false
	set(admin, app.SettingsUpdate{SMTPFrom: ptr("me@home.example")})
	if err := m.SendTest(context.Background(), admin, "ann@example.com"); err != nil {
		t.Fatal(err)
	}
	if froms, _ := op.sent(); len(froms) != 1 || froms[0] != "me@home.example" {
		t.Errorf("local mode: from %q", froms)
	}
}
