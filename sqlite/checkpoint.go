package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"time"
)

// The write-ahead log stays small (issue 26): never past WALLimit, however busy the app is.
//
// SQLite's log starts over (the writer writes from its beginning again) only when a write
// transaction begins while every frame of it has been copied into the database file and no
// reader still reads from it. A PASSIVE checkpoint copies the frames without ever blocking
// anyone; with the single writer appending all the time (a first ingestion writes tens of MB a
// second), the frames written between the checkpoint's end and the next transaction's start
// were always there, so the log never started over and grew to hundreds of MB (1 GB at 5,000
// feeds). A RESTART or TRUNCATE checkpoint guarantees it but holds the writer while it copies
// the whole log and waits for the readers (+0.3-0.8 s of first ingestion in a trial).
//
// Checkpoints therefore works in three steps, each only when the one before did not suffice:
//  1. every tick, a PASSIVE checkpoint on a connection of its own copies the log into the
//     database file, on the other core, holding nobody up;
//  2. once the log holds walRestartAt bytes, one more PASSIVE checkpoint runs on the write
//     connection, between two write transactions: it copies only the frames written since
//     step 1 (milliseconds), and the writer's next transaction starts the log over;
//  3. once it holds walTruncateAt bytes (a reader kept it from starting over: a backup, an
//     integrity check), a TRUNCATE checkpoint on the write connection holds the writer until the
//     readers are done (up to the busy timeout) and empties the file.
//
// journal_size_limit (walRestartAt) shrinks the file back when it starts over after growing
// past that. When a checkpoint fails (the disk is full: the database file cannot grow to take the
// log's pages) while the log is past walTruncateAt, write transactions are refused with that
// error until a checkpoint succeeds: otherwise the log would take the space freed on the disk
// before the checkpoint can, and fill it again (184 failed checkpoints and a full disk in the
// issue's disk-full episode).

// WALLimit is the largest the write-ahead log may grow.
const WALLimit = 64 << 20

const (
	walRestartAt  = 16 << 20 // step 2: the writer catches up the checkpoint and starts the log over
	walTruncateAt = 40 << 20 // step 3: the writer waits for the readers and empties the log
)

// walRefusal is the error write transactions get while the log is past walTruncateAt and cannot
// be checkpointed; nil otherwise.
type walRefusal struct{ err error }

// refusal returns the error a write transaction is refused with, or nil.
func (db *DB) refusal() error {
	if r := db.walRefused.Load(); r != nil {
		return r.err
	}
	return nil
}

// walBytes is a log's size in bytes for a number of frames.
func (db *DB) walBytes(frames int64) int64 { return frames * (db.pageSize + 24) }

// Checkpoints keeps the write-ahead log small (see above), looking at it every interval, until
// ctx is done. While it runs, the writer's automatic checkpoint is off (it would copy the log
// in the writer's time: every 1,000 pages, every waiting write also waited for the copy and two
// fsyncs); it is back on when it returns (and a write connection opened again meanwhile has it
// on: only slower, never unsafe).
//
// Looking costs a stat of the log file: the file grows past walRestartAt only when the log does
// (journal_size_limit cuts it back to walRestartAt when it starts over), and then the steps run
// at once. Otherwise the PASSIVE checkpoint of step 1 runs at most every passiveEvery: a page
// the writer changes again and again (a queue's, an index's) is copied into the database file
// once for all its changes of that time, not once a tick (a checkpoint every 100 ms wrote 57 MB
// more in a first ingestion of 1,000 feeds than one every 500 ms), and while the writer writes
// little, only once its writes pause (see lightLog).
func (db *DB) Checkpoints(ctx context.Context, interval time.Duration) error {
	conn, err := sql.Open("sqlite", db.dsn)
	if err != nil {
		return fmt.Errorf("sqlite: checkpoint connection: %w", err)
	}
	conn.SetMaxOpenConns(1)
	defer conn.Close()
	if _, err := db.Write.ExecContext(ctx, `pragma wal_autocheckpoint = 0`); err != nil {
		return fmt.Errorf("sqlite: turn automatic checkpoints off: %w", err)
	}
	defer db.Write.ExecContext(context.WithoutCancel(ctx), `pragma wal_autocheckpoint = 1000`)
	db.checkpointing.Store(true)
	defer db.checkpointing.Store(false)
	t := time.NewTicker(interval)
	defer t.Stop()
	var seen, last, prev, changed, dirty, noted time.Time
	var failures int
	heavy := true // the log held lightLog or more at the last checkpoint
	idle := false // nothing written since the last look, nothing waiting to be copied or synced
	for {
		if idle {
			// Nothing to look at until this process writes again (or, every idleLook, another
			// process did): an idle server stats no file ten times a second (issue 26: that was
			// the largest part of its 0.5 % of a CPU at rest).
			t.Stop()
			select {
			case <-ctx.Done():
				return nil
			case <-db.wrote:
			case <-time.After(idleLook):
			}
			t.Reset(interval)
			idle = false
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		select {
		case <-db.wrote: // a write this look sees; one that begins after it wakes an idle wait
		default:
		}
		fi, err := os.Stat(db.Path + "-wal")
		if err == nil && !fi.ModTime().Equal(noted) {
			noted = fi.ModTime()
			db.logChanged() // another process's messages may be in it (wake.go)
		}
		refused := db.walRefused.Load() != nil
		if err != nil || (fi.ModTime().Equal(seen) && !refused) {
			idle = dirty.IsZero() && len(db.wrote) == 0
			continue // no log, or nothing written since the last checkpoint
		}
		if !fi.ModTime().Equal(prev) {
			prev, changed = fi.ModTime(), time.Now()
			if dirty.IsZero() {
				dirty = changed // the first write seen since the last checkpoint
			}
		}
		quiet := time.Since(changed) >= lightQuiet // the writes paused
		if fi.Size() <= walRestartAt && !refused {
			if heavy && time.Since(last) < passiveEvery {
				continue
			}
			if !heavy && !quiet && time.Since(dirty) < lightEvery {
				continue
			}
			if !heavy && time.Since(last) < lightHold {
				if pending, ok := db.walPending(); ok && db.walBytes(pending) < lightHoldLog {
					// Little is waiting to be copied: the log is made durable where it is, and
					// copied once it holds lightHoldLog (see there).
					if err := syncFile(db.Path + "-wal"); err == nil {
						seen, dirty = fi.ModTime(), time.Time{}
						continue
					}
				}
			}
		}
		seen, last, dirty = fi.ModTime(), time.Now(), time.Time{}
		frames, err := db.checkpoint(ctx, conn)
		if err != nil && ctx.Err() == nil {
			// Said once, then every 100th time: a full disk fails every tick.
			if failures%100 == 0 {
				db.log.Warn("WAL checkpoint failed", "component", "sqlite", "error", err, "failures", failures+1)
			}
			failures++
		} else {
			failures = 0
		}
		// A large log copied once the writes paused says nothing of how fast they come: a light
		// log held until it reached lightHoldLog stays light (its next cycle is not copied every
		// passiveEvery).
		heavy = err != nil || (db.walBytes(frames) >= lightLog && !quiet)
	}
}

// idleLook is how often an idle Checkpoints looks at the log for writes of another process
// (the CLI's, another program's): this process's own wake it at once.
var idleLook = 2 * time.Second

// passiveEvery is how often Checkpoints copies the log into the database file while the writer
// writes much (the log held lightLog or more at the last checkpoint).
const passiveEvery = 500 * time.Millisecond

// While the writer writes little (the log held less than lightLog at the last checkpoint: an
// idle cycle, a person reading), Checkpoints waits until the writes pause (nothing written for
// lightQuiet) or have gone on for lightEvery: a burst of small transactions (an all-304 cycle of 1,000
// sources: ~0.5 s, ~1.4 MB of log over ~135 pages, each page written 2-3 times) is not copied into
// the database file in its middle (issue 26: each copy is ~0.5 MB more written to the disk); once
// the writes pause, the log is synced and held (lightHoldLog).
const (
	lightLog   = 4 << 20
	lightQuiet = 300 * time.Millisecond
	lightEvery = 2 * time.Second
)

// While the writer writes little, the log is not copied into the database file after every
// pause in the writes: it waits there until it holds lightHoldLog (about six all-304 cycles of
// 1,000 sources: an hour and a half at the default interval) or has waited lightHold, so that a
// page written again and again (every sources page, the scheduler's index, goqite's pages: each
// idle cycle writes them all) is copied once
// for several cycles rather than once each (issue 26, item 3: a cycle's own copy was ~135 pages,
// ~0.55 MB of the ~2.4 MB it wrote). What a checkpoint gave besides the copy is kept: once the
// writes pause the log is synced to the disk (fsync), so a power cut loses no more than before
// (with synchronous=NORMAL SQLite syncs the log only when it checkpoints). Readers find a page
// in the log through the shared-memory index, as fast for its ~1,000 frames as for none.
const (
	lightHoldLog = 8 << 20
	lightHold    = 4 * time.Hour
)

// walPending is how many frames of the log are not yet copied into the database file, read from
// the log's shared-memory index (the -shm file, https://sqlite.org/walformat.html: the header's
// mxFrame at byte 16, the checkpoint's nBackfill at byte 96, in the machine's byte order). ok is
// false when it cannot be read or does not look like one (the caller then checkpoints).
func (db *DB) walPending() (frames int64, ok bool) {
	f, err := os.Open(db.Path + "-shm")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	var b [136]byte
	if _, err := io.ReadFull(f, b[:]); err != nil {
		return 0, false
	}
	// Two copies of the header: a writer changing it leaves them different for a moment.
	if string(b[:48]) != string(b[48:96]) || b[12] != 1 { // isInit
		return 0, false
	}
	mx, backfilled := binary.NativeEndian.Uint32(b[16:]), binary.NativeEndian.Uint32(b[96:])
	if backfilled > mx {
		return 0, false
	}
	return int64(mx - backfilled), true
}

// checkpoint runs the steps (see above) that the log's size calls for, and returns the frames
// the log held at step 1.
func (db *DB) checkpoint(ctx context.Context, conn *sql.DB) (int64, error) {
	var busy, frames, done int64
	err := conn.QueryRowContext(ctx, `pragma wal_checkpoint(PASSIVE)`).Scan(&busy, &frames, &done)
	first := frames
	if err == nil && db.walBytes(frames) < walRestartAt {
		db.walRefused.Store(nil)
		return first, nil
	}
	// Step 1 again while the writer wrote much during the last one, so that step 2 holds the
	// writer only for a little (copying 15 MB there cost a first ingestion ~1.5 s of waiting).
	for i := 0; err == nil && i < 4; i++ {
		before := done
		err = conn.QueryRowContext(ctx, `pragma wal_checkpoint(PASSIVE)`).Scan(&busy, &frames, &done)
		if db.walBytes(done-before) < 1<<20 {
			break
		}
	}
	if err == nil {
		// Step 2, between two of the writer's transactions.
		err = db.Write.QueryRowContext(ctx, `pragma wal_checkpoint(PASSIVE)`).Scan(&busy, &frames, &done)
		if err == nil && (done == frames || db.walBytes(frames) < walTruncateAt) {
			db.walRefused.Store(nil)
			return first, nil
		}
	}
	// Step 3: past walTruncateAt (or a checkpoint failed).
	fi, statErr := os.Stat(db.Path + "-wal")
	if err != nil && (statErr != nil || fi.Size() < walTruncateAt) {
		return first, describe(fmt.Errorf("sqlite: checkpoint: %w", err))
	}
	var size int64
	if statErr == nil {
		size = fi.Size()
	}
	_, err = db.truncate(ctx, size)
	return first, err
}

// truncate is step 3: a TRUNCATE checkpoint on the write connection, which holds the writer
// until the readers are done and empties the log; when it fails, writes are refused until a
// checkpoint succeeds (see above).
// It reports whether readers held it back (the log was not emptied).
func (db *DB) truncate(ctx context.Context, size int64) (bool, error) {
	var busy, frames, done int64
	t0 := time.Now()
	err := db.Write.QueryRowContext(ctx, `pragma wal_checkpoint(TRUNCATE)`).Scan(&busy, &frames, &done)
	if err != nil {
		err = describe(fmt.Errorf("sqlite: checkpoint: %w", err))
		// The error first (a full disk is then reported as one), and why writes wait for it.
		db.walRefused.Store(&walRefusal{err: fmt.Errorf("%w (writes wait until the write-ahead log, past its bound of %d MiB, can be copied into the database)", err, walTruncateAt>>20)})
		return false, err
	}
	db.walRefused.Store(nil)
	msg := "WAL truncated"
	if busy == 1 {
		msg = "WAL truncation held back by readers; trying again" // bounded by the busy timeout each tick
	}
	db.log.Info(msg, "component", "sqlite", "walBytes", size, "frames", frames, "checkpointed", done, "duration", time.Since(t0))
	return busy == 1, nil
}

// wakeCheckpoints wakes an idle Checkpoints: a write transaction begins or has committed (its
// pages may reach the log only at its commit, after the look its beginning woke).
func (db *DB) wakeCheckpoints() {
	select {
	case db.wrote <- struct{}{}:
	default:
	}
}

// beforeWrite is the writer's own look at the log, before each write transaction while
// Checkpoints runs: past walTruncateAt it runs step 3 itself, so that the bound holds even when
// the checkpointer's goroutine is not scheduled for a while (a loaded machine: the log reached
// 69–106 MiB in TestWALStaysSmall under load before). A stat of the file, ~1 µs.
func (db *DB) beforeWrite(ctx context.Context) {
	if !db.checkpointing.Load() {
		return
	}
	db.wakeCheckpoints()
	// Readers can hold a truncation back (each only for a moment): the write waits and tries
	// again, up to walWaitMax, rather than grow the log past its bound.
	for wait := time.Duration(0); wait < walWaitMax; wait += walWaitStep {
		fi, err := os.Stat(db.Path + "-wal")
		if err != nil || fi.Size() < walTruncateAt {
			return
		}
		if busy, err := db.truncate(ctx, fi.Size()); err != nil || !busy {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(walWaitStep):
		}
	}
}

// How long a write waits, at most, for readers to let the log be emptied (beforeWrite).
const (
	walWaitMax  = 5 * time.Second
	walWaitStep = 10 * time.Millisecond
)

// CheckpointWAL empties the write-ahead log when it has grown past limit bytes, with a
// TRUNCATE checkpoint (which waits, up to the busy timeout and holding back writers, for the
// readers of the log to finish). It reports whether it did. Checkpoints does this and more on
// its own; this is for a process that does not run it.
func (db *DB) CheckpointWAL(ctx context.Context, limit int64) (bool, error) {
	fi, err := os.Stat(db.Path + "-wal")
	if err != nil || fi.Size() <= limit {
		return false, nil
	}
	var busy, frames, done int
	t0 := time.Now()
	if err := db.Write.QueryRowContext(ctx, `pragma wal_checkpoint(TRUNCATE)`).Scan(&busy, &frames, &done); err != nil {
		return false, describe(fmt.Errorf("sqlite: checkpoint: %w", err))
	}
	db.log.Info("WAL checkpoint", "component", "sqlite", "walBytes", fi.Size(), "busy", busy == 1, "frames", frames, "checkpointed", done,
		"duration", time.Since(t0))
	return busy == 0, nil
}
