package postgres

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/stdlib"
)

// jobChannel is where the database announces a message made visible in a queue (migration 0012:
// a trigger on goqite's table), its payload the queue's name.
const jobChannel = "morningdeck_jobs"

// OnSent calls wake whenever a message becomes visible in the queue named queue, sent by this
// instance or any other on the database, until stop is called (queue.Queue.Run uses it so that
// an idle receiver, which polls every few seconds, takes another instance's job at once). One
// connection of the pool LISTENs for all the queues of the process, from the first OnSent to
// the last stop or Close; when it is lost, it is opened again, and every queue is woken then (a
// message may have been announced meanwhile). wake must not block.
func (db *DB) OnSent(queue string, wake func()) (stop func()) { return db.jobs.OnSent(queue, wake) }

// listen holds a connection that LISTENs on jobChannel until ctx ends, opening it again after
// a failure (1 s, doubling up to a minute). Meanwhile the queues still find their messages, by
// polling.
func (db *DB) listen(ctx context.Context) {
	backoff := time.Second
	for {
		began := time.Now()
		err := db.listenOnce(ctx)
		if ctx.Err() != nil {
			return
		}
		if time.Since(began) > time.Minute {
			backoff = time.Second
		}
		db.log.Warn("listening for other instances' jobs failed; their jobs are still taken, at the queues' next poll", "error", err, "retry_in", backoff)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, time.Minute)
	}
}

// listenOnce LISTENs on one connection and wakes the queues named by its notifications until
// the connection fails or ctx ends. The connection never goes back to the pool: it is closed
// (driver.ErrBadConn), so no other use of the pool receives its notifications.
func (db *DB) listenOnce(ctx context.Context) error {
	conn, err := db.SQL.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("postgres: the driver's connection is a %T, not pgx's", dc)
		}
		pc := c.Conn()
		if _, err := pc.Exec(ctx, "listen "+jobChannel); err != nil {
			return errors.Join(err, driver.ErrBadConn)
		}
		db.jobs.Wake("") // what was announced while nobody listened
		for {
			n, err := pc.WaitForNotification(ctx)
			if err != nil {
				return errors.Join(err, driver.ErrBadConn)
			}
			db.jobs.Wake(n.Payload)
		}
	})
}
