package queue_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/queue"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

func TestQueueCounts(t *testing.T) {
	t.Run("success deletes the message and failures are counted in queue_done", func(t *testing.T) {
		db := sqlitetest.New(t)
		q := newQueue(t, db, queue.Options{MaxAttempts: 2})
		q.Register("ok", func(ctx context.Context, job queue.Job) error { return nil })
		q.Register("fail", func(ctx context.Context, job queue.Job) error { return errors.New("no") })
		send(t, q, "ok", nil)
		send(t, q, "ok", nil)
		send(t, q, "fail", nil)
		run(t, q)

		eventually(t, "a dead job", func() bool { return len(dead(t, q)) == 1 })
		eventually(t, "the queue to empty", func() bool { return count(t, db, `select count(*) from goqite`) == 0 })
		// Successes are counted in memory and written every 2 s.
		eventually(t, "2 successes in queue_done", func() bool {
			return count(t, db, `select coalesce(sum(ok), 0) from queue_done where queue = ?`, name) == 2
		})
		if n := count(t, db, `select sum(failed) from queue_done where queue = ?`, name); n != 2 {
			t.Errorf("failed = %d (one retry, one dead letter)", n)
		}
		s, err := q.Stats(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if s.DoneLastHour != 2 || s.FailedLastHour != 2 || s.Dead != 1 {
			t.Errorf("stats = %+v", s)
		}
	})

	t.Run("Stats reports ready, delayed, in flight and dead", func(t *testing.T) {
		db := sqlitetest.New(t)
		q := newQueue(t, db, queue.Options{})
		send(t, q, "a", nil)
		send(t, q, "b", nil)
		if err := q.Send(t.Context(), "c", 1, nil, queue.SendOptions{Delay: time.Hour}); err != nil {
			t.Fatal(err)
		}
		if m, err := rawQueue(db, time.Minute).Receive(t.Context()); err != nil || m == nil {
			t.Fatalf("raw receive = %v, %v", m, err)
		}
		if _, err := db.Write.Exec(`insert into queue_dead (id, queue, kind, body) values ('d1', ?, 'x', cast('{}' as blob))`, name); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)

		s, err := q.Stats(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if s.Ready != 1 || s.Delayed != 1 || s.InFlight != 1 || s.Dead != 1 || s.OldestReady <= 0 || s.OldestReady > time.Minute {
			t.Errorf("stats = %+v", s)
		}
		if n, err := q.Size(t.Context()); err != nil || n != 3 {
			t.Errorf("Size = %d, %v", n, err)
		}
	})

	t.Run("Cleanup removes old dead jobs and counters but keeps recent ones", func(t *testing.T) {
		db := sqlitetest.New(t)
		c := sqlitetest.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
		q := newQueue(t, db, queue.Options{Clock: c, DeadRetention: 24 * time.Hour})
		for _, row := range [][]string{{"old", "2026-02-28T11:59:00.000Z"}, {"new", "2026-02-28T12:01:00.000Z"}} {
			if _, err := db.Write.Exec(`insert into queue_dead (id, queue, kind, body, failed_at) values (?, ?, 'x', cast('{}' as blob), ?)`, row[0], name, row[1]); err != nil {
				t.Fatal(err)
			}
		}
		for _, minute := range []string{"2026-02-20T12:00", "2026-02-28T12:00"} {
			if _, err := db.Write.Exec(`insert into queue_done (queue, minute, ok) values (?, ?, 1)`, name, minute); err != nil {
				t.Fatal(err)
			}
		}
		if err := q.Cleanup(t.Context()); err != nil {
			t.Fatal(err)
		}
		if d := dead(t, q); len(d) != 1 || d[0].ID != "new" {
			t.Errorf("dead = %+v", d)
		}
		if n := count(t, db, `select count(*) from queue_done`); n != 1 {
			t.Errorf("%d counter rows", n)
		}
	})
}
