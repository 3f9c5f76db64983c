package sqlite

import (
	"context"
	"time"
)

// OnSent calls wake whenever another process may have sent a message to a queue (a command run
// beside the server: `morningdeck source add` queues the new source's fetch), until stop is
// called: queue.Queue.Run uses it so that an idle receiver, which polls only every few seconds
// (queue.Options.IdlePoll), takes the job within about two seconds. This process's own sends
// wake its receivers themselves. wake must not block.
//
// SQLite has no notifications. Checkpoints already looks at the log file, every idleLook while
// the server is idle; when it sees the file changed, the writer's connection is asked for the
// database's data version (at most every otherLook). The version a connection sees changes only
// when another connection commits, so the writer's own commits — nearly all of this process's —
// do not count, and only another process's (or, rarely, this one's checkpoint that starts the
// log over) wake every queue, which cannot be told apart: each then receives once. Nothing
// more wakes an idle server (a ticker of its own cost 20 ms of CPU a minute on the development
// VM); without Checkpoints running (a command, not the server) the queues find such messages at
// their next poll.
func (db *DB) OnSent(queue string, wake func()) (stop func()) { return db.jobs.OnSent(queue, wake) }

// otherLook is the least time between two looks at the data version.
var otherLook = time.Second

// logChanged tells watchVersion that the log file changed (Checkpoints).
func (db *DB) logChanged() {
	select {
	case db.logMoved <- struct{}{}:
	default:
	}
}

// watchVersion wakes every queue when the writer's data version changes, until ctx ends.
func (db *DB) watchVersion(ctx context.Context) {
	var version int64
	known := false
	look := func() {
		var v int64
		if err := db.Write.QueryRowContext(ctx, `pragma data_version`).Scan(&v); err != nil {
			if ctx.Err() == nil {
				db.log.Debug("read the data version", "component", "sqlite", "error", err)
			}
			return
		}
		if known && v != version {
			db.jobs.Wake("")
		}
		version, known = v, true
	}
	look()
	for {
		select {
		case <-ctx.Done():
			return
		case <-db.logMoved:
		}
		look()
		// While the log keeps changing (this process writing), a look at most every otherLook.
		select {
		case <-ctx.Done():
			return
		case <-time.After(otherLook):
		}
	}
}
