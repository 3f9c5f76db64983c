package queue

import (
	"context"
	"log/slog"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

// Scheduler runs a cycle at once and then every Interval: finding due work and enqueueing it
// (a service's QueueDue), or resetting what is stuck (Recovery).
type Scheduler struct {
	Name     string                                 // for the logs: "fetch scheduler", "item recovery"
	Cycle    func(ctx context.Context) (int, error) // returns how much it did
	Interval time.Duration                          // default 60s
	Log      *slog.Logger
}

// Run runs Cycle at once and then every Interval until ctx is done.
func (s *Scheduler) Run(ctx context.Context) {
	Every(ctx, orDefault(s.Interval, time.Minute), func() {
		if _, err := s.Cycle(ctx); err != nil && ctx.Err() == nil {
			logger(s.Log).Error(s.Name+" cycle failed", "component", "scheduler", "error", err)
		}
	})
}

// Recovery returns the cycle that resets entities stuck in a transitional state (a source
// QUEUED or FETCHING, an item PENDING or PROCESSING, a briefing QUEUED or PROCESSING) for
// longer than threshold (default 10 min) and whose job is no longer in its queue: the work was
// lost, and resetting lets the schedulers pick it up again. reset returns the ids it reset.
func Recovery(entity string, reset func(ctx context.Context, cutoff time.Time) ([]int64, error), threshold time.Duration, clock app.Clock, log *slog.Logger) func(ctx context.Context) (int, error) {
	threshold = orDefault(threshold, 10*time.Minute)
	return func(ctx context.Context) (int, error) {
		ids, err := reset(ctx, app.ClockOrSystem(clock).Now().Add(-threshold))
		if err != nil {
			return 0, err
		}
		for _, id := range ids {
			logger(log).Warn(entity+" was stuck in a transitional state; reset", "component", "recovery", entity, id, "threshold", threshold)
		}
		return len(ids), nil
	}
}

// Every calls fn at once and then every d until ctx is done.
func Every(ctx context.Context, d time.Duration, fn func()) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		fn()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func logger(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}
