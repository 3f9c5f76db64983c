package queue

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"
)

// The operations on the message table (goqite's), each on one Store method: send, receive and
// claim, acknowledge (delete), extend. The rest of the queue reaches messages only through
// these, so they are the seam where the queue can be re-based on goqite's own API.

// envelope is the goqite message body.
type envelope struct {
	Kind     string          `json:"kind"`
	Version  int             `json:"v"`
	Attempt  int             `json:"attempt"`
	Priority int             `json:"p,omitempty"`
	Data     json.RawMessage `json:"data"`
}

// goqiteMaxReceive is goqite's MaxReceive as we set it: our own attempts and delivery limit
// replace it, since goqite's would strand messages.
const goqiteMaxReceive = 1_000_000

// sendTx enqueues an envelope in tx, visible after delay.
func (q *Queue) sendTx(ctx context.Context, tx *sql.Tx, env envelope, delay time.Duration) error {
	body, err := json.Marshal(env)
	if err != nil {
		return fmt.Errorf("queue %s: encode %s: %w", q.opts.Name, env.Kind, err)
	}
	if err := q.sendBodyTx(ctx, tx, body, delay, env.Priority); err != nil {
		return fmt.Errorf("queue %s: send %s: %w", q.opts.Name, env.Kind, err)
	}
	return nil
}

// sendBodyTx enqueues a message body as it is (a dead one sent again may not decode).
func (q *Queue) sendBodyTx(ctx context.Context, tx *sql.Tx, body []byte, delay time.Duration, priority int) error {
	return q.store.SendJob(ctx, tx, q.opts.Name, body, max(delay, 0), priority)
}

// receiveMany receives up to n messages, with their delivery counts, and runs their kinds'
// ClaimFuncs, all in one write transaction. It returns none when the queue is empty.
func (q *Queue) receiveMany(ctx context.Context, n int) ([]delivery, error) {
	var ds []delivery
	err := q.inTx(ctx, func(tx *sql.Tx) error {
		msgs, err := q.store.ReceiveJobs(ctx, tx, q.opts.Name, q.opts.Timeout, goqiteMaxReceive, n)
		if err != nil {
			return err
		}
		ds = make([]delivery, len(msgs))
		now := time.Now()
		for i, m := range msgs {
			ds[i] = delivery{m: m, received: m.Received, at: now}
		}
		for i := range ds {
			d := &ds[i]
			if json.Unmarshal(d.m.Body, &d.env) != nil || d.env.Kind == "" {
				continue // dead-lettered by handle
			}
			d.decodeOK = true
			d.env.Attempt = max(d.env.Attempt, 1)
			if claim := q.claims[d.env.Kind]; claim != nil && d.received <= q.opts.MaxDeliveries {
				job := Job{ID: string(d.m.ID), Queue: q.opts.Name, Kind: d.env.Kind, Version: d.env.Version, Attempt: d.env.Attempt, Data: d.env.Data, Received: d.received}
				if d.claimed, err = claim(ctx, tx, job); err != nil {
					return fmt.Errorf("claim %s: %w", d.env.Kind, err)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ds, nil
}

// deleteTx deletes a message in tx.
func (q *Queue) deleteTx(ctx context.Context, tx *sql.Tx, id string) error {
	return q.store.DeleteJob(ctx, tx, q.opts.Name, id)
}

// extend makes a received message invisible for delay more (0: visible again at once).
func (q *Queue) extend(ctx context.Context, id string, delay time.Duration) error {
	return q.store.ExtendJob(ctx, q.opts.Name, id, delay)
}

// inTx runs fn in a write transaction of the store.
func (q *Queue) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return q.store.JobTx(ctx, fn)
}
