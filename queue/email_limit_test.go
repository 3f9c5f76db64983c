package queue_test

import (
	"context"
	"database/sql"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/mail"
	"github.com/morningdeck/morningdeck/queue"
	"github.com/morningdeck/morningdeck/sqlite"
)

// The daily send limit (exposed mode): past it, a delivery is FAILED with a clear message and
// nothing reaches the SMTP server.
func TestEmailDailyLimit(t *testing.T) {
	ctx := context.Background()
	srv := newSMTPServer(t)
	var eq *queue.EmailQueue
	r := newBriefingRigHook(t, time.Now(), func(db *sqlite.DB) func(context.Context, *sql.Tx, *app.Briefing, *app.Report) error {
		eq = queue.NewEmailQueue(queue.Options{Store: db, PollInterval: 20 * time.Millisecond, BaseBackoff: 20 * time.Millisecond})
		return (&app.Deliveries{Store: db, Queue: eq}).QueueTx
	})
	host, port, _ := net.SplitHostPort(srv.addr)
	p, _ := strconv.Atoi(port)
	queue.HandleEmail(eq, &app.Deliveries{Store: r.db, Queue: eq, DailyLimit: 2,
		Mailer: &mail.Mailer{Default: mail.Options{Host: host, Port: p, TLS: "none", From: "deck@example.com", Timeout: 5 * time.Second}}})
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { _ = eq.Run(runCtx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })

	r.item(t, "Le Soir", "Tram to the airport", "The council approved the tram.", 90, time.Now().Add(-time.Hour))
	b := &app.Briefing{UserID: 1, Name: "Morning", Time: "07:00", Timezone: "UTC", EmailEnabled: true,
		Recipients: []string{"a@example.com", "b@example.com", "c@example.com"}}
	if err := (&app.Briefings{Store: r.db}).Save(ctx, b); err != nil {
		t.Fatal(err)
	}
	if _, err := r.runNow(ctx, b.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	d := waitDelivery(t, r, app.DeliveryFailed)
	if !strings.Contains(d.LastError, "limit of 2 emails in 24 hours") {
		t.Errorf("last error %q", d.LastError)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var sent int
		_ = r.db.Read.QueryRow(`select count(*) from deliveries where status = 'SENT'`).Scan(&sent)
		if sent == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d sent", sent)
		}
	}
	if n := len(srv.sent()); n != 2 {
		t.Errorf("the SMTP server got %d messages, want 2", n)
	}
}
