package postgres

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"maragu.dev/goqite"
)

// ReceiveTx receives the next message of goqite's queue name in tx, as goqite's own ReceiveTx
// does on PostgreSQL (the same table, the same columns and order, the same result), with one
// difference: the message's row is locked by the select that chooses it, "for update skip
// locked", so that receivers on several connections (several instances) never hand out one
// message twice, nor wait for each other.
//
// goqite's ReceiveTx chooses the row in a subquery without locking it: under read committed
// (our transactions' level) two receivers choose the same row, the second's update waits for
// the first's commit, then updates the row again (the subquery is not evaluated again) and the
// message is delivered twice; under goqite's own Receive (serializable) the second fails with a
// serialization error instead. TestGoqiteReceiveConcurrent measures both, and this.
func ReceiveTx(ctx context.Context, tx *sql.Tx, queue string, timeout time.Duration, maxReceive int) (*goqite.Message, error) {
	now := time.Now().UTC()
	var m goqite.Message
	err := tx.QueryRowContext(ctx, `update goqite set timeout = $1, received = received + 1
		where id = (
			select id from goqite
			where queue = $2 and $3 >= timeout and received < $4
			order by priority desc, created
			limit 1
			for update skip locked
		)
		returning id, body`, now.Add(timeout), queue, now, maxReceive).Scan(&m.ID, &m.Body)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	return &m, nil
}
