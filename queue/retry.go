package queue

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/metrics"
)

type permanentError struct{ err error }

func (e permanentError) Error() string { return e.err.Error() }
func (e permanentError) Unwrap() error { return e.err }

// Permanent marks err as not worth retrying: the job goes to the dead letter table at once.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return permanentError{err: err}
}

// failed records a job's failure: dead-lettered when it is permanent or the job's last
// attempt, otherwise the job is sent again, one attempt further, after a backoff.
func (q *Queue) failed(wctx context.Context, log *slog.Logger, m message, env envelope, took time.Duration, err error) {
	var perm permanentError
	switch {
	case errors.As(err, &perm), env.Attempt >= q.opts.MaxAttempts:
		metrics.Finished(q.opts.Name, env.Kind, "dead", took)
		q.deadLetter(log, m, env.Kind, env.Attempt, err)
	default:
		delay := q.backoff(env.Attempt)
		var retryer app.Retryer
		if errors.As(err, &retryer) {
			delay = max(delay, retryer.RetryDelay())
		}
		next := env
		next.Attempt++
		if err := q.inTx(wctx, func(tx *sql.Tx) error {
			if err := q.deleteTx(wctx, tx, m); err != nil {
				return err
			}
			if err := q.sendTx(wctx, tx, next, delay); err != nil {
				return err
			}
			return q.countTx(wctx, tx, 0, 1)
		}); err != nil {
			log.Error("schedule retry", "error", err)
			return
		}
		metrics.Finished(q.opts.Name, env.Kind, "retry", took)
		log.Warn("job failed, will retry", "duration", took, "error", err, "retry_in", delay)
	}
}

// backoff is the delay after the given failed attempt: BaseBackoff*2^(attempt-1), ±20%, capped.
func (q *Queue) backoff(attempt int) time.Duration {
	d := q.opts.BaseBackoff
	for i := 1; i < attempt && d < q.opts.MaxBackoff; i++ {
		d *= 2
	}
	d = time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
	return min(d, q.opts.MaxBackoff)
}
