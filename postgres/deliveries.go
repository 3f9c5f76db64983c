package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

var _ app.DeliveryStore = (*DB)(nil)

// CreateDeliveriesTx records one delivery per recipient of a report, within the report's
// transaction, and returns their ids (an existing delivery is not duplicated).
func (db *DB) CreateDeliveriesTx(ctx context.Context, tx *sql.Tx, reportID int64, recipients []string) ([]int64, error) {
	var ids []int64
	for _, to := range recipients {
		var id int64
		err := tx.QueryRowContext(ctx, `insert into deliveries (report_id, recipient, created_at) values ($1, $2, $3) on conflict do nothing returning id`, reportID, to, db.now()).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		} else if err != nil {
			return nil, fmt.Errorf("postgres: insert delivery: %w", err)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

const deliveryColumns = `id, report_id, recipient, status, attempts, last_error, sent_at`

func scanDelivery(row scanner) (*app.Delivery, error) {
	var d app.Delivery
	var sent sql.NullTime
	if err := row.Scan(&d.ID, &d.ReportID, &d.Recipient, &d.Status, &d.Attempts, &d.LastError, &sent); err != nil {
		return nil, err
	}
	d.SentAt = timePtr(sent)
	return &d, nil
}

// Delivery returns a delivery.
func (db *DB) Delivery(ctx context.Context, id int64) (*app.Delivery, error) {
	d, err := scanDelivery(db.SQL.QueryRowContext(ctx, `select `+deliveryColumns+` from deliveries where id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, app.Errorf(app.ENOTFOUND, "Delivery %d not found.", id)
	}
	return d, err
}

// Deliveries returns a report's deliveries.
func (db *DB) Deliveries(ctx context.Context, reportID int64) ([]*app.Delivery, error) {
	return queryAll(ctx, db, "deliveries", scanDelivery, `select `+deliveryColumns+` from deliveries where report_id = $1 order by id`, reportID)
}

// StartDelivery marks a PENDING (or interrupted SENDING) delivery SENDING and counts the
// attempt; it returns nil when the delivery is already SENT, FAILED or SKIPPED.
func (db *DB) StartDelivery(ctx context.Context, id int64) (*app.Delivery, error) {
	d, err := scanDelivery(db.SQL.QueryRowContext(ctx, `update deliveries set status = 'SENDING', attempts = attempts + 1
		where id = $1 and status in ('PENDING', 'SENDING') returning `+deliveryColumns, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("postgres: start delivery: %w", err)
	}
	return d, nil
}

// FinishDelivery records a delivery's outcome (SENT, FAILED, SKIPPED, or PENDING for a retry)
// and runs then in the same transaction.
func (db *DB) FinishDelivery(ctx context.Context, id int64, status, msg string, then app.TxFunc) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		var sent any
		if status == app.DeliverySent {
			sent = db.now()
		}
		if _, err := tx.ExecContext(ctx, `update deliveries set status = $1, last_error = $2, sent_at = coalesce($3, sent_at) where id = $4`, status, msg, sent, id); err != nil {
			return fmt.Errorf("postgres: finish delivery: %w", err)
		}
		if then != nil {
			return then(ctx, tx)
		}
		return nil
	})
}

// ResendDelivery puts a FAILED (or SKIPPED) delivery back to PENDING and calls enqueue in the
// same transaction.
func (db *DB) ResendDelivery(ctx context.Context, userID, id int64, enqueue func(ctx context.Context, tx *sql.Tx) error) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `update deliveries set status = 'PENDING', attempts = 0, last_error = ''
			where id = $1 and status in ('FAILED', 'SKIPPED') and report_id in (select id from reports where user_id = $2)`, id, userID)
		if err != nil {
			return fmt.Errorf("postgres: resend delivery: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return app.Errorf(app.ECONFLICT, "Delivery %d is not failed (or does not exist).", id)
		}
		return enqueue(ctx, tx)
	})
}

// SentBy counts the emails of a user's briefings sent since a time (the daily send limit),
// with those being sent now that were started before delivery `before`.
func (db *DB) SentBy(ctx context.Context, userID int64, since time.Time, before int64) (int, error) {
	var n int
	err := db.SQL.QueryRowContext(ctx, `select count(*) from deliveries d
		join reports r on r.id = d.report_id join briefings b on b.id = r.briefing_id
		where b.user_id = $1 and (d.status = 'SENT' and d.sent_at >= $2 or d.status = 'SENDING' and d.id < $3)`,
		userID, dbTime(since), before).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("postgres: count sent emails: %w", err)
	}
	return n, nil
}
