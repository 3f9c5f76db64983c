//go:build testhooks

package main

// Test-only hooks, compiled only with `-tags testhooks` (e2e/shutdown_test.go builds a
// binary with it); release and ordinary builds do not contain this file.

import (
	"context"
	"os"
	"time"

	"github.com/morningdeck/morningdeck/cli"
	"github.com/morningdeck/morningdeck/queue"
)

func init() {
	testHook = func(ctx context.Context, e *cli.Env) {
		if os.Getenv("MORNINGDECK_TEST_PIN_JOB") == "" {
			return
		}
		// A job pinned on CPU that never looks at its context: what a parser stuck in a loop
		// would be. The process queue runs it.
		e.ProcessQ.Register("test-pin", func(ctx context.Context, job queue.Job) error {
			e.Log.Warn("test-pin: job pinned on CPU, ignoring cancellation")
			n := 0
			for start := time.Now(); time.Since(start) < time.Hour; n++ {
			}
			return nil
		})
		if err := e.ProcessQ.Send(ctx, "test-pin", 1, map[string]int{"pin": 1}, queue.SendOptions{}); err != nil {
			e.Log.Error("test-pin: send", "error", err)
		}
	}
}
