package app

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// DeliveryStore keeps the email deliveries of reports.
type DeliveryStore interface {
	CreateDeliveriesTx(ctx context.Context, tx *sql.Tx, reportID int64, recipients []string) ([]int64, error)
	Deliveries(ctx context.Context, reportID int64) ([]*Delivery, error)
	StartDelivery(ctx context.Context, id int64) (*Delivery, error)
	FinishDelivery(ctx context.Context, id int64, status, msg string, then TxFunc) error
	ResendDelivery(ctx context.Context, userID, id int64, enqueue func(ctx context.Context, tx *sql.Tx) error) error
	Report(ctx context.Context, userID, id int64) (*Report, error)
	Briefing(ctx context.Context, userID, id int64) (*Briefing, error)
	// SentBy counts the emails of a user's briefings sent since a time, and those being sent
	// that started before delivery `before`.
	SentBy(ctx context.Context, userID int64, since time.Time, before int64) (int, error)
}

// DeliveryQueue is where deliveries wait to be sent.
type DeliveryQueue interface {
	EnqueueTx(ctx context.Context, tx *sql.Tx, deliveryID int64) error
}

// Mailer sends email with the user's SMTP settings where set, else the configured ones;
// mail.Mailer is the real one.
type Mailer interface {
	// SendReport sends delivery d of report r of briefing b.
	SendReport(ctx context.Context, b *Briefing, r *Report, d *Delivery) error
	// SendTest sends a short test message.
	SendTest(ctx context.Context, userID int64, to string) error
}

// Deliveries is the service that emails reports.
type Deliveries struct {
	Store  DeliveryStore
	Queue  DeliveryQueue
	Mailer Mailer
	Log    *slog.Logger
	// DailyLimit is how many report emails one user's briefings send in 24 hours at most
	// (0: no limit). An email over the limit is FAILED with a message saying so; it can be
	// sent again from the report once the day has passed.
	DailyLimit int
}

// NewDeliveries builds the email deliveries service: its store, the email queue, the mailer,
// and the daily limit of report emails per user (0: none).
func NewDeliveries(store DeliveryStore, queue DeliveryQueue, mailer Mailer, log *slog.Logger, dailyLimit int) *Deliveries {
	return &Deliveries{Store: store, Queue: queue, Mailer: mailer, Log: log, DailyLimit: dailyLimit}
}

// Emails reports whether report r of b is emailed: the briefing emails, has recipients, and the
// report has items or the briefing emails empty reports too.
func (b *Briefing) Emails(r *Report) bool {
	return b.EmailEnabled && len(b.Recipients) > 0 && (len(r.Items) > 0 || b.EmailWhenEmpty)
}

// QueueTx creates one delivery per recipient of a report that is emailed and enqueues them, in
// the report's transaction (Briefings.Emails).
func (s *Deliveries) QueueTx(ctx context.Context, tx *sql.Tx, b *Briefing, r *Report) error {
	if !b.Emails(r) {
		return nil
	}
	ids, err := s.Store.CreateDeliveriesTx(ctx, tx, r.ID, b.Recipients)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := s.Queue.EnqueueTx(ctx, tx, id); err != nil {
			return err
		}
	}
	return nil
}

// List is a report's deliveries.
func (s *Deliveries) List(ctx context.Context, reportID int64) ([]*Delivery, error) {
	return s.Store.Deliveries(ctx, reportID)
}

// Resend sends a FAILED or SKIPPED delivery again.
func (s *Deliveries) Resend(ctx context.Context, userID, id int64) error {
	return s.Store.ResendDelivery(ctx, userID, id, func(ctx context.Context, tx *sql.Tx) error { return s.Queue.EnqueueTx(ctx, tx, id) })
}

// SendTest is the settings page's "send test email".
func (s *Deliveries) SendTest(ctx context.Context, userID int64, to string) error {
	return s.Mailer.SendTest(ctx, userID, to)
}

// Send sends one delivery. A delivery already SENT is never sent again; one whose briefing
// stopped emailing (or dropped the recipient) meanwhile is SKIPPED. The window in which a crash
// can send twice is between the SMTP server's OK and the SENT mark (one transaction later).
// A failure is returned for a retry, except on the last attempt, where it marks the delivery FAILED.
func (s *Deliveries) Send(ctx context.Context, a Attempt, id int64) (Outcome, error) {
	log := logOrDiscard(s.Log).With("component", "email", "delivery", id)
	d, err := s.Store.StartDelivery(ctx, id)
	if err != nil || d == nil {
		return Outcome{}, err // nil, nil: already sent, failed or skipped
	}
	r, err := s.Store.Report(ctx, 0, d.ReportID)
	if err != nil {
		return Outcome{}, err
	}
	b, err := s.Store.Briefing(ctx, 0, r.BriefingID)
	if err != nil {
		return Outcome{}, err
	}
	if !b.EmailEnabled || !slices.Contains(b.Recipients, d.Recipient) {
		log.Info("email skipped: the briefing no longer sends to this recipient")
		return Outcome{Result: "skipped"}, s.Store.FinishDelivery(ctx, d.ID, DeliverySkipped, "Email was turned off for this briefing before sending.", a.complete())
	}
	if s.DailyLimit > 0 {
		n, err := s.Store.SentBy(ctx, b.UserID, time.Now().Add(-24*time.Hour), d.ID)
		if err != nil {
			return Outcome{}, err
		}
		if n >= s.DailyLimit {
			log.Warn("email not sent: the account reached its daily limit", "to", d.Recipient, "limit", s.DailyLimit)
			return Outcome{Result: "failed"}, s.Store.FinishDelivery(ctx, d.ID, DeliveryFailed,
				fmt.Sprintf("Not sent: this account has reached its limit of %d emails in 24 hours. Send it again later from this report.", s.DailyLimit), a.complete())
		}
	}
	start := time.Now()
	if err := s.Mailer.SendReport(ctx, b, r, d); err != nil {
		if ctx.Err() != nil {
			return Outcome{}, ctx.Err()
		}
		status := DeliveryPending
		var then TxFunc
		if a.Last {
			status, then = DeliveryFailed, a.complete()
		}
		if ferr := s.Store.FinishDelivery(ctx, d.ID, status, err.Error(), then); ferr != nil {
			return Outcome{}, ferr
		}
		log.Warn("email failed", "to", d.Recipient, "error", err, "final", a.Last)
		if a.Last {
			return Outcome{Result: "failed"}, nil
		}
		return Outcome{Result: "retry"}, err
	}
	if err := s.Store.FinishDelivery(ctx, d.ID, DeliverySent, "", a.complete()); err != nil {
		return Outcome{}, err
	}
	log.Info("email sent", "to", d.Recipient, "report", r.ID, "duration", time.Since(start))
	return Outcome{Result: "sent"}, nil
}

// Delivery statuses.
const (
	DeliveryPending = "PENDING"
	DeliverySending = "SENDING"
	DeliverySent    = "SENT"
	DeliveryFailed  = "FAILED"
	DeliverySkipped = "SKIPPED"
)

// Delivery is one email of a report to one recipient.
type Delivery struct {
	ID        int64      `json:"id"`
	ReportID  int64      `json:"reportId"`
	Recipient string     `json:"recipient"`
	Status    string     `json:"status"`
	Attempts  int        `json:"attempts"`
	LastError string     `json:"lastError"`
	SentAt    *time.Time `json:"sentAt"`
}

// UnsubscribeStore is what one-click unsubscribing needs from the database.
type UnsubscribeStore interface {
	// Secret is an installation secret made by a migration ("unsubscribe").
	Secret(ctx context.Context, name string) ([]byte, error)
	Briefing(ctx context.Context, userID, id int64) (*Briefing, error)
	// RemoveRecipient takes to off the briefing's recipients (email stops when none is left);
	// it reports whether to was one of them.
	RemoveRecipient(ctx context.Context, briefingID int64, to string) (bool, error)
}

// Unsubscribes is the service behind the signed unsubscribe links of report emails (RFC 8058
// one-click, and a confirm page for people who follow the link).
type Unsubscribes struct {
	Store UnsubscribeStore
}

func unsubscribeSig(secret []byte, briefingID int64, to string) string {
	m := hmac.New(sha256.New, secret)
	fmt.Fprintf(m, "unsubscribe\x00%d\x00%s", briefingID, strings.ToLower(strings.TrimSpace(to)))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:24])
}

// Link is the signed unsubscribe URL (under baseURL) that turns recipient to off for briefing id.
func (s *Unsubscribes) Link(ctx context.Context, baseURL string, briefingID int64, to string) (string, error) {
	secret, err := s.Store.Secret(ctx, "unsubscribe")
	if err != nil {
		return "", err
	}
	q := url.Values{"b": {strconv.FormatInt(briefingID, 10)}, "to": {to}, "sig": {unsubscribeSig(secret, briefingID, to)}}
	return strings.TrimRight(baseURL, "/") + "/unsubscribe?" + q.Encode(), nil
}

// Check verifies a signed link and returns the briefing it names (any user's: the link is the
// credential). A link that was changed or made up is ENOTFOUND.
func (s *Unsubscribes) Check(ctx context.Context, briefingID int64, to, sig string) (*Briefing, error) {
	secret, err := s.Store.Secret(ctx, "unsubscribe")
	if err != nil {
		return nil, err
	}
	if to == "" || !hmac.Equal([]byte(sig), []byte(unsubscribeSig(secret, briefingID, to))) {
		return nil, Errorf(ENOTFOUND, "This unsubscribe link is not valid: it may have been cut or changed. Open the latest email's link again.")
	}
	b, err := s.Store.Briefing(ctx, 0, briefingID)
	if err != nil {
		if ErrorCode(err) == ENOTFOUND {
			return nil, Errorf(ENOTFOUND, "This briefing no longer exists, so it sends no more email.")
		}
		return nil, err
	}
	return b, nil
}

// Unsubscribe checks a signed link and turns its recipient off for its briefing. Doing it
// twice is fine.
func (s *Unsubscribes) Unsubscribe(ctx context.Context, briefingID int64, to, sig string) (*Briefing, error) {
	b, err := s.Check(ctx, briefingID, to, sig)
	if err != nil {
		return nil, err
	}
	if _, err := s.Store.RemoveRecipient(ctx, briefingID, to); err != nil {
		return nil, err
	}
	return b, nil
}
