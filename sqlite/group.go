package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Group commit. The fetch workers each end a job with a write transaction (the items, the
// source's state and the job's acknowledgement); with the single write connection those
// transactions queue for it, and a commit (with its WAL write) cost as much as the rest of the
// transaction. groupTx runs the transactions that are waiting when the writer becomes free in
// one database transaction; when one of them fails, they all run again, each in a
// transaction of its own, so that the one is rolled back alone and gets its error (failures
// are rare: a savepoint for each, as before, made SQLite copy every page each one changed).
// The others commit together, and none of them returns before its commit is durable. A
// crash before the commit loses all of them, like separate transactions that had not
// committed yet; nothing is ever half stored.
//
// A caller that need not wait for its commit hands its transaction over (groupLater): the
// writer runs it with the next group and tells the caller how it went; meanwhile the caller
// goes on (a fetch worker fetches the next source), so more transactions wait for each commit.

// groupMax bounds how many transactions share a commit, so that none waits long for the others.
const groupMax = 64

// laterMax bounds the transactions handed over and not committed yet (each holds what it will
// store): past it, groupLater waits for the commit like groupTx.
const laterMax = 8

type groupReq struct {
	ctx   context.Context
	fn    func(tx *sql.Tx) error
	err   error
	panic any
	done  chan struct{}
	later func(error) // groupLater's: told the outcome once the group committed
	soon  bool        // groupSoon's: a small transaction
}

// batchLen is how many of the pending transactions share the next commit: up to groupMax, or
// up to soonMax while they are all small ones (groupSoon).
func batchLen(pending []*groupReq) int {
	limit := groupMax
	if len(pending) > 0 && pending[0].soon {
		limit = soonMax
	}
	n := 0
	for n < len(pending) && n < limit && (n < groupMax || pending[n].soon) {
		n++
	}
	return n
}

type grouper struct {
	mu        sync.Mutex
	pending   []*groupReq
	running   bool
	later     int            // handed over and not finished
	lastLater time.Time      // when the last one was handed over
	closed    bool           // Close has begun: nothing more is handed over
	laterWG   sync.WaitGroup // the same, for Close
	soon      []*groupReq    // handed over by groupSoon, waiting for soonWait or soonMax
}

// A transaction that stores little and whose caller need not wait (a fetch that found nothing
// new: its source's times and its job's acknowledgement) waits up to soonWait for others of its
// kind, or until FlushSoon (the fetch queue has nothing more to run), so that an all-304 cycle
// commits one or two large groups instead of hundreds of small ones: each commit writes every
// page it changed to the log (and, at the next checkpoint, to the database file), and the same
// pages — goqite's, the scheduler index's, the sources' — were written again by every commit
// (issue 26: 16 MB of log for 1,000 sources, 4,000 pages, in ~500 commits; groups of 256 within
// 100 ms, 5-6 a cycle, wrote ~200 pages, one of 1,000 ~80). Its source shows as being fetched
// for that much longer.
const (
	soonWait = 500 * time.Millisecond
	soonMax  = 1024
)

// leadLocked reports whether the caller leads the writer (drains the pending transactions):
// none runs yet. g.mu held.
func (g *grouper) leadLocked() bool {
	lead := !g.running
	g.running = true
	return lead
}

// groupTx runs fn in a write transaction that it may share with other callers of groupTx
// (see above). fn must not hold on to tx, and must return an error for anything it did not
// finish: its writes are rolled back then, and only its own.
func (db *DB) groupTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	r := &groupReq{ctx: ctx, fn: fn, done: make(chan struct{})}
	g := &db.group
	g.mu.Lock()
	g.pending = append(g.pending, r)
	lead := g.leadLocked()
	g.mu.Unlock()
	if lead {
		db.drain(r)
	}
	<-r.done
	if r.panic != nil {
		panic(r.panic)
	}
	return r.err
}

// WritesWaiting reports whether transactions handed over to the writer (fetch results) are
// waiting for it, or were in the last half second (a burst of fetches): background work that
// can wait (the search indexer) then lets them go first.
func (db *DB) WritesWaiting() bool {
	db.group.mu.Lock()
	defer db.group.mu.Unlock()
	return db.group.later > 0 || time.Since(db.group.lastLater) < 500*time.Millisecond
}

// tell gives a handed-over transaction's outcome to its callback; a panic there is logged, not
// let loose on the writer.
func (db *DB) tell(done func(error), err error) {
	defer func() {
		if p := recover(); p != nil {
			db.log.Error("the callback of a handed-over transaction panicked", "component", "sqlite", "panic", p)
		}
	}()
	done(err)
}

// groupLater queues fn for the writer's next group commit, like groupTx, and returns at once;
// done is called with fn's outcome after the commit (or its failure), from the writer's
// goroutine: it must be quick and must not write to the database itself (it would wait for
// the writer it runs on; start a goroutine for that). fn is given ctx stripped of its cancellation (the caller has
// moved on), and must use that one. A panic in fn fails its transaction alone and reaches done as an error. When
// laterMax transactions are already waiting, groupLater waits for its commit. Close waits for
// all of them.
func (db *DB) groupLater(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error, done func(error)) {
	r := laterReq(ctx, fn, done, false)
	g := &db.group
	g.mu.Lock()
	if !db.admitLocked(r) {
		return
	}
	g.pending = append(g.pending, r)
	wait := g.later > laterMax
	lead := g.leadLocked()
	g.mu.Unlock()
	if lead {
		go db.drain(nil)
	}
	if wait {
		<-r.done
	}
}

// laterReq is a transaction handed over to the writer (groupLater, groupSoon): fn runs with ctx
// stripped of its cancellation, done hears its outcome.
func laterReq(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error, done func(error), soon bool) *groupReq {
	ctx = context.WithoutCancel(ctx)
	return &groupReq{ctx: ctx, fn: func(tx *sql.Tx) error { return fn(ctx, tx) }, done: make(chan struct{}), later: done, soon: soon}
}

// admitLocked counts a handed-over transaction as waiting (g.mu held); when the database is
// closing it unlocks, tells r's callback so, and reports false.
func (db *DB) admitLocked(r *groupReq) bool {
	g := &db.group
	if g.closed {
		g.mu.Unlock()
		db.tell(r.later, errors.New("sqlite: the database is closing"))
		return false
	}
	g.later++
	g.lastLater = time.Now()
	g.laterWG.Add(1)
	return true
}

// groupSoon is groupLater for a transaction that may wait up to soonWait for others to share
// its commit (see soonWait).
func (db *DB) groupSoon(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error, done func(error)) {
	r := laterReq(ctx, fn, done, true)
	g := &db.group
	g.mu.Lock()
	if !db.admitLocked(r) {
		return
	}
	g.soon = append(g.soon, r)
	first, full := len(g.soon) == 1, len(g.soon) >= soonMax
	g.mu.Unlock()
	if full {
		db.flushSoon()
	} else if first {
		time.AfterFunc(soonWait, db.flushSoon)
	}
}

// FlushSoon commits now what groupSoon holds (the fetch queue calls it when it has run all it
// received: nothing more will join them).
func (db *DB) FlushSoon() { db.flushSoon() }

// flushSoon hands what groupSoon holds to the writer.
func (db *DB) flushSoon() {
	g := &db.group
	g.mu.Lock()
	if len(g.soon) == 0 {
		g.mu.Unlock()
		return
	}
	g.pending = append(g.pending, g.soon...)
	g.soon = nil
	lead := g.leadLocked()
	g.mu.Unlock()
	if lead {
		go db.drain(nil)
	}
}

// drain commits the waiting transactions, batch after batch, until mine is done; then it hands
// what still waits to a goroutine of its own, so that a worker is not kept committing for others.
func (db *DB) drain(mine *groupReq) {
	g := &db.group
	for {
		g.mu.Lock()
		batch := g.pending[:batchLen(g.pending)]
		if len(batch) == 0 {
			g.running = false
			g.mu.Unlock()
			return
		}
		g.pending = append([]*groupReq(nil), g.pending[len(batch):]...)
		g.mu.Unlock()
		db.runGroup(batch)
		if mine == nil {
			continue
		}
		select {
		case <-mine.done:
			go db.drain(nil)
			return
		default:
		}
	}
}

// runGroup runs a batch of transactions in one and tells each caller how it went.
func (db *DB) runGroup(batch []*groupReq) {
	defer func() {
		for _, r := range batch {
			if r.later == nil {
				close(r.done)
				continue
			}
			err := r.err
			if r.panic != nil && err == nil {
				err = fmt.Errorf("panic: %v", r.panic)
			}
			db.tell(r.later, err)
			close(r.done)
			db.group.mu.Lock()
			db.group.later--
			db.group.mu.Unlock()
			db.group.laterWG.Done()
		}
	}()
	if len(batch) == 1 {
		r := batch[0]
		r.err = db.tx(r.ctx, func(tx *sql.Tx) error { return call(r, tx) })
		return
	}
	// The shared transaction outlives any one caller's context; each fn uses its own. The fns
	// run one after the other in it, with no savepoint between them (a savepoint makes SQLite
	// keep a copy of every page a fn changes); when one fails, the whole batch is rolled back
	// and each fn runs again in a transaction of its own, so that it fails alone.
	ctx := context.WithoutCancel(batch[0].ctx)
	tx, err := db.begin(ctx)
	if err != nil {
		for _, r := range batch {
			r.err = describe(fmt.Errorf("begin: %w", err))
		}
		return
	}
	failed := false
	for _, r := range batch {
		if err := call(r, tx); err != nil {
			failed = true
			break
		}
	}
	if !failed {
		if err := tx.Commit(); err != nil {
			for _, r := range batch {
				r.err = describe(fmt.Errorf("commit: %w", err))
			}
		}
		db.wakeCheckpoints()
		return
	}
	_ = tx.Rollback()
	for _, r := range batch {
		r.err, r.panic = nil, nil
		r.err = db.tx(r.ctx, func(tx *sql.Tx) error { return call(r, tx) })
	}
}

// call runs r's fn, turning a panic into an error for the batch and keeping it for the caller,
// who panics with it in its own goroutine.
func call(r *groupReq, tx *sql.Tx) (err error) {
	defer func() {
		if p := recover(); p != nil {
			r.panic = p
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return r.fn(tx)
}
