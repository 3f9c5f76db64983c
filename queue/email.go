package queue

import (
	"context"
	"database/sql"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/metrics"
)

// EmailQueue is where deliveries wait; 3 attempts with exponential backoff.
type EmailQueue struct{ *Queue }

var _ app.DeliveryQueue = (*EmailQueue)(nil)

// NewEmailQueue returns the email queue (2 workers by default).
func NewEmailQueue(o Options) *EmailQueue {
	o.Name = "email"
	o.Workers = orDefault(o.Workers, 2)
	o.MaxAttempts = orDefault(o.MaxAttempts, 3)
	return &EmailQueue{New(o)}
}

// EnqueueTx adds a delivery's job within the caller's transaction.
func (q *EmailQueue) EnqueueTx(ctx context.Context, tx *sql.Tx, deliveryID int64) error {
	return q.SendTx(ctx, tx, app.KindSendEmail, 1, app.EmailJob{DeliveryID: deliveryID}, SendOptions{})
}

// HandleEmail makes the queue send deliveries with d.
func HandleEmail(q *EmailQueue, d *app.Deliveries) {
	Handle(q.Queue, app.KindSendEmail, func(ctx context.Context, job Job, p app.EmailJob) error {
		out, err := d.Send(ctx, job.Run(), p.DeliveryID)
		if out.Result != "" {
			metrics.EmailDeliveries.WithLabelValues(out.Result).Inc()
		}
		return err
	})
}
