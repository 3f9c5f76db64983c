package queue_test

import (
	"context"
	"database/sql"
	"io"
	"mime"
	"net"
	netmail "net/mail"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/mail"
	"github.com/morningdeck/morningdeck/queue"
	"github.com/morningdeck/morningdeck/sqlite"
)

// smtpServer is a real SMTP server in the test process; it fails the first `fail` messages (or
// all, with fail < 0) with a temporary error.
type smtpServer struct {
	addr     string
	fail     atomic.Int64
	attempts atomic.Int64
	mu       sync.Mutex
	messages []string
	rcpts    []string
}

func newSMTPServer(t *testing.T) *smtpServer {
	t.Helper()
	s := &smtpServer{}
	srv := smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) { return &smtpSession{s: s}, nil }))
	srv.Domain = "localhost"
	srv.AllowInsecureAuth = true
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.addr = l.Addr().String()
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return s
}

type smtpSession struct {
	s  *smtpServer
	to string
}

func (x *smtpSession) Reset()        {}
func (x *smtpSession) Logout() error { return nil }
func (x *smtpSession) Mail(from string, opts *smtp.MailOptions) error {
	return nil
}
func (x *smtpSession) Rcpt(to string, opts *smtp.RcptOptions) error { x.to = to; return nil }
func (x *smtpSession) Data(r io.Reader) error {
	b, _ := io.ReadAll(r)
	n := x.s.attempts.Add(1)
	if f := x.s.fail.Load(); f < 0 || n <= f {
		return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "try again later"}
	}
	x.s.mu.Lock()
	x.s.messages = append(x.s.messages, string(b))
	x.s.rcpts = append(x.s.rcpts, x.to)
	x.s.mu.Unlock()
	return nil
}

func (s *smtpServer) sent() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.messages...)
}

func emailRig(t *testing.T, srv *smtpServer) *briefingRig {
	t.Helper()
	var eq *queue.EmailQueue
	r := newBriefingRigHook(t, time.Now(), func(db *sqlite.DB) func(context.Context, *sql.Tx, *app.Briefing, *app.Report) error {
		eq = queue.NewEmailQueue(queue.Options{Store: db, PollInterval: 20 * time.Millisecond, BaseBackoff: 20 * time.Millisecond})
		return (&app.Deliveries{Store: db, Queue: eq}).QueueTx
	})
	host, port, _ := net.SplitHostPort(srv.addr)
	p, _ := strconv.Atoi(port)
	ew := &app.Deliveries{Store: r.db, Queue: eq, Mailer: &mail.Mailer{Default: mail.Options{Host: host, Port: p, TLS: "none", From: "deck@example.com", Timeout: 5 * time.Second}, BaseURL: "http://127.0.0.1:7777"}}
	queue.HandleEmail(eq, ew)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = eq.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return r
}

func waitDelivery(t *testing.T, r *briefingRig, status string) *app.Delivery {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var id int64
		err := r.db.Read.QueryRow(`select id from deliveries where status = ?`, status).Scan(&id)
		if err == nil {
			d, _ := r.db.Delivery(context.Background(), id)
			return d
		}
		if time.Now().After(deadline) {
			t.Fatalf("no delivery reached %s", status)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestEmailDelivery(t *testing.T) {
	ctx := context.Background()
	setup := func(t *testing.T, srv *smtpServer) (*briefingRig, *app.Briefing) {
		r := emailRig(t, srv)
		r.item(t, "Le Soir", "Tram to the airport <approved>", "The council approved the tram.", 90, time.Now().Add(-time.Hour))
		b := &app.Briefing{UserID: 1, Name: "Morning", Time: "07:00", Timezone: "Europe/Brussels", EmailEnabled: true, Recipients: []string{"ann@example.com"}}
		if err := (&app.Briefings{Store: r.db}).Save(ctx, b); err != nil {
			t.Fatal(err)
		}
		return r, b
	}

	t.Run("a report is mailed once, with an HTML and a plain-text part and the links back", func(t *testing.T) {
		srv := newSMTPServer(t)
		r, b := setup(t, srv)
		if _, err := r.runNow(ctx, b.ID, time.Now()); err != nil {
			t.Fatal(err)
		}
		d := waitDelivery(t, r, app.DeliverySent)
		msgs := srv.sent()
		if len(msgs) != 1 || d.Attempts != 1 || d.SentAt == nil {
			t.Fatalf("%d messages, delivery %+v", len(msgs), d)
		}
		m := msgs[0]
		parsed, err := netmail.ReadMessage(strings.NewReader(m))
		if err != nil {
			t.Fatal(err)
		}
		subject, _ := new(mime.WordDecoder).DecodeHeader(parsed.Header.Get("Subject"))
		if !strings.HasPrefix(subject, "Morning — ") {
			t.Errorf("subject %q", subject)
		}
		for _, want := range []string{"text/plain", "text/html", "List-Unsubscribe: <http://127.0.0.1:7777/briefings>", "http://127.0.0.1:7777/reports/", "Tram to the airport <approved>"} { // the text part is plain text {
			if !strings.Contains(m, want) {
				t.Errorf("message lacks %q", want)
			}
		}
		if strings.Contains(m, "<approved>") && !strings.Contains(m, "text/plain") {
			t.Error("HTML from the feed is not escaped")
		}
	})

	t.Run("a server that fails twice then accepts gets the email once", func(t *testing.T) {
		srv := newSMTPServer(t)
		srv.fail.Store(2)
		r, b := setup(t, srv)
		if _, err := r.runNow(ctx, b.ID, time.Now()); err != nil {
			t.Fatal(err)
		}
		d := waitDelivery(t, r, app.DeliverySent)
		if len(srv.sent()) != 1 || d.Attempts != 3 {
			t.Fatalf("%d messages after %d attempts", len(srv.sent()), d.Attempts)
		}
	})

	t.Run("a server that always fails leaves the delivery FAILED with the SMTP error; resend works", func(t *testing.T) {
		srv := newSMTPServer(t)
		srv.fail.Store(-1)
		r, b := setup(t, srv)
		if _, err := r.runNow(ctx, b.ID, time.Now()); err != nil {
			t.Fatal(err)
		}
		d := waitDelivery(t, r, app.DeliveryFailed)
		if d.Attempts != 3 || !strings.Contains(d.LastError, "try again later") {
			t.Fatalf("delivery %+v", d)
		}
		srv.fail.Store(0)
		eq := queue.NewEmailQueue(queue.Options{Store: r.db})
		if err := r.db.ResendDelivery(ctx, 1, d.ID, func(ctx context.Context, tx *sql.Tx) error { return eq.EnqueueTx(ctx, tx, d.ID) }); err != nil {
			t.Fatal(err)
		}
		// The rig's running email queue picks up the job (same queue name, same database).
		waitDelivery(t, r, app.DeliverySent)
		if len(srv.sent()) != 1 {
			t.Fatalf("%d messages", len(srv.sent()))
		}
	})

	t.Run("email turned off before sending skips the delivery", func(t *testing.T) {
		srv := newSMTPServer(t)
		srv.fail.Store(-1) // keep the first attempt failing so there is time to turn email off
		r, b := setup(t, srv)
		if _, err := r.runNow(ctx, b.ID, time.Now()); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(10 * time.Second); srv.attempts.Load() == 0; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("never attempted")
			}
		}
		b.EmailEnabled = false
		if err := (&app.Briefings{Store: r.db}).Save(ctx, b); err != nil {
			t.Fatal(err)
		}
		d := waitDelivery(t, r, app.DeliverySkipped)
		if len(srv.sent()) != 0 || !strings.Contains(d.LastError, "turned off") {
			t.Fatalf("delivery %+v, %d sent", d, len(srv.sent()))
		}
	})
}

func TestEmailEmptyReport(t *testing.T) {
	ctx := context.Background()
	srv := newSMTPServer(t)
	r := emailRig(t, srv)
	quiet := &app.Briefing{UserID: 1, Name: "Quiet", Time: "07:00", Timezone: "UTC", EmailEnabled: true, Recipients: []string{"ann@example.com"}}
	asked := &app.Briefing{UserID: 1, Name: "Always", Time: "07:00", Timezone: "UTC", EmailEnabled: true, EmailWhenEmpty: true, Recipients: []string{"bob@example.com"}}
	for _, b := range []*app.Briefing{quiet, asked} {
		if err := (&app.Briefings{Store: r.db}).Save(ctx, b); err != nil {
			t.Fatal(err)
		}
		if _, err := r.runNow(ctx, b.ID, time.Now()); err != nil {
			t.Fatal(err)
		}
		r.waitReport(t, b.ID, 1)
	}
	waitDelivery(t, r, app.DeliverySent)
	var n int
	if err := r.db.Read.QueryRow(`select count(*) from deliveries`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d deliveries (%v): only the briefing that asked for empty reports gets one", n, err)
	}
	msgs := srv.sent()
	if len(msgs) != 1 || !strings.Contains(msgs[0], "bob@example.com") || !strings.Contains(msgs[0], "Nothing new") {
		t.Fatalf("sent %d: %.400q", len(msgs), msgs)
	}
}
