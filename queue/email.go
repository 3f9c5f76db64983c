package queue

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/mail"
	"github.com/morningdeck/morningdeck/app/metrics"
)

// KindSendEmail is the job kind of one email delivery.
const KindSendEmail = "send_email"

type emailJob struct {
	DeliveryID int64 `json:"deliveryId"`
}

// EmailStore is what email delivery needs from the database.
type EmailStore interface {
	CreateDeliveriesTx(ctx context.Context, tx *sql.Tx, reportID int64, recipients []string) ([]int64, error)
	StartDelivery(ctx context.Context, id int64) (*app.Delivery, error)
	FinishDelivery(ctx context.Context, id int64, status, msg string, then app.TxFunc) error
	Report(ctx context.Context, userID, id int64) (*app.Report, error)
	Briefing(ctx context.Context, userID, id int64) (*app.Briefing, error)
}

// EmailQueue is where deliveries wait; 3 attempts with exponential backoff.
type EmailQueue struct{ *Queue }

// NewEmailQueue returns the email queue (2 workers by default).
func NewEmailQueue(o Options) *EmailQueue {
	o.Name = "email"
	o.Workers = orDefault(o.Workers, 2)
	o.MaxAttempts = orDefault(o.MaxAttempts, 3)
	return &EmailQueue{New(o)}
}

// OnReport returns the briefing worker's hook: one delivery per recipient, enqueued in the
// report's transaction, when the briefing emails and the report has items.
func (q *EmailQueue) OnReport(store EmailStore) func(ctx context.Context, tx *sql.Tx, b *app.Briefing, r *app.Report) error {
	return func(ctx context.Context, tx *sql.Tx, b *app.Briefing, r *app.Report) error {
		if !b.EmailEnabled || len(b.Recipients) == 0 || len(r.Items) == 0 && !b.EmailWhenEmpty {
			return nil
		}
		ids, err := store.CreateDeliveriesTx(ctx, tx, r.ID, b.Recipients)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if err := q.EnqueueTx(ctx, tx, id); err != nil {
				return err
			}
		}
		return nil
	}
}

// EnqueueTx adds a delivery's job within the caller's transaction.
func (q *EmailQueue) EnqueueTx(ctx context.Context, tx *sql.Tx, deliveryID int64) error {
	return q.SendTx(ctx, tx, KindSendEmail, 1, emailJob{DeliveryID: deliveryID}, SendOptions{})
}

// Mailer sends one message; *mail.Sender is the real one.
type Mailer interface {
	Send(ctx context.Context, m *mail.Message) error
}

// EmailWorker sends report emails.
type EmailWorker struct {
	Store       EmailStore
	Mailer      Mailer
	BaseURL     string
	MaxAttempts int
	Log         *slog.Logger
}

// Register makes w handle the queue's email jobs.
func (w *EmailWorker) Register(q *EmailQueue) {
	w.MaxAttempts = q.opts.MaxAttempts
	q.Register(KindSendEmail, w.Handle)
}

// Handle sends one delivery. A delivery already SENT is never sent again; one whose briefing
// stopped emailing (or dropped the recipient) meanwhile is SKIPPED. The window in which a crash
// can send twice is between the SMTP server's OK and the SENT mark (one transaction later).
func (w *EmailWorker) Handle(ctx context.Context, job Job) error {
	var p emailJob
	if err := json.Unmarshal(job.Data, &p); err != nil || p.DeliveryID == 0 {
		return Permanent(fmt.Errorf("bad email job payload %s", job.Data))
	}
	log := logger(w.Log).With("component", "email", "delivery", p.DeliveryID, "job", job.ID, "attempt", job.Attempt)
	d, err := w.Store.StartDelivery(ctx, p.DeliveryID)
	if err != nil || d == nil {
		return err // nil, nil: already sent, failed or skipped
	}
	r, err := w.Store.Report(ctx, 0, d.ReportID)
	if err != nil {
		return err
	}
	b, err := w.Store.Briefing(ctx, 0, r.BriefingID)
	if err != nil {
		return err
	}
	if !b.EmailEnabled || !slices.Contains(b.Recipients, d.Recipient) {
		log.Info("email skipped: the briefing no longer sends to this recipient")
		metrics.EmailDeliveries.WithLabelValues("skipped").Inc()
		return w.Store.FinishDelivery(ctx, d.ID, app.DeliverySkipped, "Email was turned off for this briefing before sending.", job.CompleteTx)
	}
	start := time.Now()
	if err := w.Mailer.Send(ctx, mail.Compose(b, r, d.ID, d.Recipient, w.BaseURL)); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		last := job.Attempt >= max(w.MaxAttempts, 1)
		status := app.DeliveryPending
		if last {
			status = app.DeliveryFailed
		}
		var then app.TxFunc
		if last {
			then = job.CompleteTx
		}
		if ferr := w.Store.FinishDelivery(ctx, d.ID, status, err.Error(), then); ferr != nil {
			return ferr
		}
		log.Warn("email failed", "to", d.Recipient, "error", err, "final", last)
		if last {
			metrics.EmailDeliveries.WithLabelValues("failed").Inc()
			return nil
		}
		metrics.EmailDeliveries.WithLabelValues("retry").Inc()
		return err
	}
	if err := w.Store.FinishDelivery(ctx, d.ID, app.DeliverySent, "", job.CompleteTx); err != nil {
		return err
	}
	metrics.EmailDeliveries.WithLabelValues("sent").Inc()
	log.Info("email sent", "to", d.Recipient, "report", r.ID, "duration", time.Since(start))
	return nil
}
