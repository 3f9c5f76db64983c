//go:build testhooks

package main

// Test-only hooks, compiled only with `-tags testhooks` (main_test.go's shutdown test builds a
// binary with it); release and ordinary builds do not contain this file.

import (
	"context"
	"os"
	"time"

	"github.com/morningdeck/morningdeck/queue"
)

func init() {
	testHook = func(ctx context.Context, e *env) {
		if os.Getenv("MORNINGDECK_TEST_PIN_JOB") == "" {
			return
		}
		// A job pinned on CPU that never looks at its context: what a parser stuck in a loop
		// would be. The process queue runs it.
		e.processQ.Register("test-pin", func(ctx context.Context, job queue.Job) error {
			e.log.Warn("test-pin: job pinned on CPU, ignoring cancellation")
			n := 0
			for start := time.Now(); time.Since(start) < time.Hour; n++ {
			}
			return nil
		})
		if err := e.processQ.Send(ctx, "test-pin", 1, map[string]int{"pin": 1}, queue.SendOptions{}); err != nil {
			e.log.Error("test-pin: send", "error", err)
		}
	}
}
