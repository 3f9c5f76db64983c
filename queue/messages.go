package queue

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strconv"
	"time"

	"maragu.dev/goqite"

	"github.com/morningdeck/morningdeck/app"
)

// The operations on a queue's messages go through goqite's own API (issue 26): SendTx,
// ReceiveTx, ExtendTx and DeleteTx of the queue's *goqite.Queue, each in a transaction of ours,
// so that a job's claim, its result and its acknowledgement commit together, and the receive of
// several jobs shares one transaction (receiveMany). What goqite has no API for is ours, beside
// it, in the Store, and says why there:
//   - the delivery count of a received message (ReceiveTx does not return goqite's received
//     column; the dead-lettering of a job delivered MaxDeliveries times without finishing needs
//     it): Store.JobDeliveries;
//   - the dead letters, the finished-job counters and the pause switch (tables of ours);
//   - the counts by state for the dashboard and the metrics (goqite has no listing or stats):
//     Store.JobCounts, Store.QueueSize;
//   - the stuck-entity recovery's look for a live job about an entity (sqlite.noLiveJob).

// envelope is the goqite message body.
type envelope struct {
	Kind     string          `json:"kind"`
	Version  int             `json:"v"`
	Attempt  int             `json:"attempt"`
	Priority int             `json:"p,omitempty"`
	Data     json.RawMessage `json:"data"`
}

// goqiteMaxReceive is goqite's MaxReceive as we set it: our own attempts and delivery limit
// (MaxDeliveries, dead-lettering) replace it, since goqite's would strand messages: a message
// received MaxReceive times is never handed out again, and never removed either.
const goqiteMaxReceive = 1_000_000

// newGoqite is the goqite queue under q, on the store's write connection (used only by goqite's
// methods without Tx, which we do not call: every operation runs in a transaction of ours).
func newGoqite(store Store, name string, timeout time.Duration) *goqite.Queue {
	opts := goqite.NewOpts{DB: store.JobDB(), Name: name, MaxReceive: goqiteMaxReceive, Timeout: timeout}
	if f, ok := store.(flavored); ok {
		opts.SQLFlavor = f.GoqiteFlavor()
	}
	return goqite.New(opts)
}

// flavored is a Store whose database is not SQLite (goqite's default): postgres.DB.
type flavored interface {
	GoqiteFlavor() goqite.SQLFlavor
}

// receiver is a Store that receives messages itself, on goqite's table and in goqite's way,
// where goqite's own ReceiveTx is not enough: on PostgreSQL it hands one message to several
// receivers at once (postgres.ReceiveTx says how, and what was measured).
type receiver interface {
	ReceiveJobTx(ctx context.Context, tx *sql.Tx, queue string, timeout time.Duration, maxReceive int) (*goqite.Message, error)
}

// receiveTx receives the next message of lane l in tx (nil when there is none).
func (q *Queue) receiveTx(ctx context.Context, tx *sql.Tx, l int) (*goqite.Message, error) {
	if r, ok := q.store.(receiver); ok {
		return r.ReceiveJobTx(ctx, tx, laneName(q.opts.Name, l), q.opts.Timeout, goqiteMaxReceive)
	}
	return q.gq[l].ReceiveTx(ctx, tx)
}

// laneName is the goqite queue name of a queue's lane l: the queue's name, then name#1, ….
func laneName(name string, l int) string {
	if l == 0 {
		return name
	}
	return name + "#" + strconv.Itoa(l)
}

// newLanes is a queue's goqite queues (Options.Lanes): the first named name, the others
// name#1, name#2, … (sqlite's queries of goqite's table count them all as the queue's).
func newLanes(store Store, name string, timeout time.Duration, lanes int) []*goqite.Queue {
	gq := make([]*goqite.Queue, lanes)
	for i := range gq {
		gq[i] = newGoqite(store, laneName(name, i), timeout)
	}
	return gq
}

// message is a message received, with the goqite queue (lane) it was received from: it is
// extended and deleted there.
type message struct {
	app.JobMessage
	lane *goqite.Queue
}

// lane is the goqite queue a message is sent to: the one its body hashes to.
func (q *Queue) lane(body []byte) *goqite.Queue {
	if len(q.gq) == 1 {
		return q.gq[0]
	}
	h := fnv.New32a()
	_, _ = h.Write(body)
	return q.gq[h.Sum32()%uint32(len(q.gq))]
}

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
	return q.lane(body).SendTx(ctx, tx, goqite.Message{Body: body, Delay: max(delay, 0), Priority: priority})
}

// receiveMany receives up to n messages (goqite's ReceiveTx, n times), with their delivery
// counts, and runs their kinds' ClaimFuncs, all in one write transaction. It returns none when
// the queue is empty.
func (q *Queue) receiveMany(ctx context.Context, n int) ([]delivery, error) {
	var ds []delivery
	err := q.inTx(ctx, func(tx *sql.Tx) error {
		ds = ds[:0]
		ids := make([]string, 0, n)
		// One from each lane in turn, starting with the next lane each time, until n or every
		// lane is empty (within a lane, goqite hands out by priority, then age).
		lanes := len(q.gq)
		start, emptied := int(q.turn.Add(1)), 0
		empty := make([]bool, lanes)
		for i := 0; len(ds) < max(n, 1) && emptied < lanes; i++ {
			l := (start + i) % lanes
			if empty[l] {
				continue
			}
			m, err := q.receiveTx(ctx, tx, l)
			if err != nil {
				return err
			}
			if m == nil {
				empty[l] = true
				emptied++
				continue
			}
			ds = append(ds, delivery{m: message{JobMessage: app.JobMessage{ID: string(m.ID), Body: m.Body}, lane: q.gq[l]}})
			ids = append(ids, string(m.ID))
		}
		if len(ds) == 0 {
			return nil
		}
		received, err := q.store.JobDeliveries(ctx, tx, ids)
		if err != nil {
			return err
		}
		now := time.Now()
		for i := range ds {
			d := &ds[i]
			d.at = now
			d.received = received[i]
			d.m.Received = received[i]
			if json.Unmarshal(d.m.Body, &d.env) != nil || d.env.Kind == "" {
				continue // dead-lettered by handle
			}
			d.decodeOK = true
			d.env.Attempt = max(d.env.Attempt, 1)
			if claim := q.claims[d.env.Kind]; claim != nil && d.received <= q.opts.MaxDeliveries {
				job := Job{ID: d.m.ID, Queue: q.opts.Name, Kind: d.env.Kind, Version: d.env.Version, Attempt: d.env.Attempt, Data: d.env.Data, Received: d.received, lane: d.m.lane}
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
func (q *Queue) deleteTx(ctx context.Context, tx *sql.Tx, m message) error {
	return m.lane.DeleteTx(ctx, tx, goqite.ID(m.ID))
}

// extend makes a received message invisible for delay more (0: visible again at once), in a
// transaction of its own.
func (q *Queue) extend(ctx context.Context, m message, delay time.Duration) error {
	return q.inTx(ctx, func(tx *sql.Tx) error { return m.lane.ExtendTx(ctx, tx, goqite.ID(m.ID), max(delay, 0)) })
}

// inTx runs fn in a write transaction of the store.
func (q *Queue) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return q.store.JobTx(ctx, fn)
}
