package cli

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/metrics"
	"github.com/morningdeck/morningdeck/queue"
	"github.com/morningdeck/morningdeck/views"
)

// runWorkers runs the pipelines until ctx is done, then shuts them down gracefully. Every
// background loop of the program starts here.
func (e *Env) runWorkers(ctx context.Context) *sync.WaitGroup {
	var wg sync.WaitGroup
	cfg := e.Config
	run := func(q *queue.Queue, every time.Duration, cycles ...*queue.Scheduler) {
		wg.Go(func() { _ = q.Run(ctx) })
		for _, c := range cycles {
			c.Interval = cmp.Or(c.Interval, every)
			c.Log = e.Log
			wg.Go(func() { c.Run(ctx) })
		}
	}
	recovery := func(entity string, reset func(context.Context, time.Time) ([]int64, error)) *queue.Scheduler {
		return &queue.Scheduler{Name: entity + " recovery", Interval: cfg.RecoveryInterval, Cycle: queue.Recovery(entity, reset, cfg.StuckThreshold, nil, e.Log)}
	}
	if cfg.FetchEnabled {
		run(e.FetchQ.Queue, cfg.FetchInterval,
			&queue.Scheduler{Name: "fetch scheduler", Cycle: func(ctx context.Context) (int, error) { return e.Svc.Sources.QueueDue(ctx, cfg.FetchBatchSize) }},
			recovery("source", e.Svc.Sources.ResetStuck))
	}
	if cfg.ProcessEnabled {
		e.Svc.Enriching.Learn(ctx, 5000)
		if _, err := e.Svc.Enriching.QueueUnscoredImports(ctx); err != nil {
			e.Log.Warn("back catalogues not queued for scoring", "error", err)
		}
		run(e.ProcessQ.Queue, cfg.ProcessInterval,
			&queue.Scheduler{Name: "process scheduler", Cycle: func(ctx context.Context) (int, error) { return e.Svc.Enriching.QueueNew(ctx, cfg.ProcessBatchSize) }},
			recovery("item", e.Svc.Enriching.ResetStuck))
	}
	if cfg.BriefingEnabled {
		run(e.BriefingQ.Queue, cfg.BriefingInterval,
			&queue.Scheduler{Name: "briefing scheduler", Cycle: e.Svc.Briefings.QueueDue},
			recovery("briefing", e.Svc.Briefings.ResetStuck))
		run(e.EmailQ.Queue, 0)
	}
	wg.Go(func() { e.indexLoop(ctx) })
	if cfg.FetchEnabled {
		// Favicons: a few at a time, apart from the fetches, so that they never hold one up, and
		// not in the first minute, when a start's fetches (a first import) have the network.
		wg.Go(func() {
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Minute):
			}
			queue.Every(ctx, time.Minute, func() {
				if _, err := e.Svc.Sources.RefreshIcons(ctx, 20); err != nil && ctx.Err() == nil {
					e.Log.Warn("icon refresh failed", "error", err)
				}
			})
		})
	}
	wg.Go(func() {
		// The write-ahead log is looked at every 100 ms: a first ingestion writes up to tens of MB
		// of it a second, and it must never pass sqlite.WALLimit (issue 26).
		c, ok := e.DB.(interface {
			Checkpoints(ctx context.Context, every time.Duration) error
		})
		if !ok {
			return // PostgreSQL checkpoints by itself
		}
		if err := c.Checkpoints(ctx, 100*time.Millisecond); err != nil {
			e.Log.Warn("background checkpoints not running; SQLite checkpoints as it writes", "component", "sqlite", "error", err)
		}
	})
	wg.Go(func() {
		queue.Every(ctx, time.Hour, func() {
			for _, q := range e.Admin.List {
				if err := q.Cleanup(ctx); err != nil && ctx.Err() == nil {
					e.Log.Warn("queue cleanup failed", "queue", q.Name(), "error", err)
				}
			}
			e.Svc.Care.Daily(ctx, time.Now())
		})
	})
	return &wg
}

// indexLoop adds new items to the search index every couple of seconds: all of them, batch
// after batch, unless fetch results are waiting for the write connection — then one batch a
// tick, and the rest once the burst is over (a first ingestion of 20,000 items had the index
// hold the writer for 16 batches in a row, ~1.3 s, while fetches waited behind it).
func (e *Env) indexLoop(ctx context.Context) {
	queue.Every(ctx, 2*time.Second, func() {
		for ctx.Err() == nil {
			n, err := e.DB.IndexItems(ctx, app.IndexBatch)
			if err != nil {
				if ctx.Err() == nil {
					e.Log.Warn("search indexing failed", "error", err)
				}
				return
			}
			if w, ok := e.DB.(interface{ WritesWaiting() bool }); n < app.IndexBatch || ok && w.WritesWaiting() {
				return
			}
		}
	})
}

func serve(cmd *cobra.Command, cfg *Config) error {
	trusted, err := Prefixes("trusted-proxy", cfg.TrustedProxies)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	e, err := open(ctx, cfg)
	if err != nil {
		return err
	}
	defer e.DB.Close()

	requireLogin := cfg.Exposed()
	if requireLogin {
		if err := ensureAdmin(cmd, cfg, e.Svc.Accounts); err != nil {
			return err
		}
	}
	// Only the default address moves to the next free port; one that was chosen (flag,
	// environment, configuration file) fails clearly, so a reverse proxy never loses the app.
	ln, err := listen(cfg.Addr, !cmd.Flags().Changed("addr") && cfg.Sources["addr"] == "")
	if err != nil {
		return err
	}
	if cfg.BaseURL == "" {
		e.Mailer.BaseURL = listenURL(ln.Addr()) // the port really bound (":0", or the next free one); --base-url wins
	}
	handler := views.New(views.Options{
		Sources: e.Svc.Sources, Log: e.Log, Version: opts.Version,
		ImportOPML: func(ctx context.Context, userID int64, r io.Reader) (int, int, []string, error) {
			res, err := e.Svc.Sources.ImportOPML(ctx, userID, r, nil)
			if res == nil {
				return 0, 0, nil, err
			}
			return res.Added, res.Skipped, res.Errors, err
		},
		ExportOPML:     e.Svc.Sources.ExportOPML,
		Reading:        e.Svc.Reading,
		Feedback:       e.Svc.Feedback,
		Saving:         e.Svc.Saving,
		Settings:       e.Svc.Settings,
		Enricher:       views.EnricherInfo{Default: cfg.Enricher, LLMConfigured: e.Chooser.Configured(), LLMModel: cfg.LLMModel, LLMBaseURL: cfg.LLMBaseURL},
		TestLLM:        e.Chooser.TestLLM,
		Vocabulary:     e.Svc.Enriching.Vocabulary,
		Briefings:      e.Svc.Briefings,
		Deliveries:     e.Svc.Deliveries,
		Unsubscribes:   &app.Unsubscribes{Store: e.DB},
		Queues:         e.Admin,
		Accounts:       e.Svc.Accounts,
		Reader:         e.Reader,
		RequireLogin:   requireLogin,
		TrustedProxies: trusted,
		DataCare:       views.DataCareInfo{RetentionDays: cfg.RetentionDays, BackupDir: cfg.BackupDir, BackupKeep: cfg.BackupKeep, DBPath: cfg.DatabaseName()},
		LogRequests:    cfg.LogsRequests(),
		Metrics:        metrics.Handler(),
	})
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}

	workCtx, stopWork := context.WithCancel(context.Background())
	wg := &sync.WaitGroup{}
	if !cfg.NoWorkers {
		wg = e.runWorkers(workCtx)
	}
	url := "http://" + ln.Addr().String() + "/"
	e.Log.Info("Morning Deck is running", "url", url, "data", cfg.DatabaseName(), "version", opts.Version)
	fmt.Fprintf(cmd.OutOrStdout(), "Morning Deck is running at %s\n", url)
	if !cfg.NoBrowser {
		go launchBrowser(e.Log, url)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
	case err := <-errc:
		stopWork()
		wg.Wait()
		return err
	}
	e.Log.Info("shutting down: finishing running jobs", "grace", cfg.ShutdownGracePeriod)
	defer e.shutdownWatchdog().Stop()
	// Requests in flight and running jobs get the same grace, at the same time.
	stopWork()
	shutCtx, cancel := context.WithTimeout(context.Background(), min(cfg.ShutdownGracePeriod, 5*time.Second))
	defer cancel()
	_ = srv.Shutdown(shutCtx)
	wg.Wait()
	e.Log.Info("stopped")
	return nil
}

// shutdownWatchdog ends the process if shutting down takes longer than the grace period and a
// few seconds (the queues give up on jobs that ignore cancellation after queue.AbandonAfter;
// this is the backstop for anything else that does not return). Unfinished jobs come back
// after their timeout, as after a crash.
func (e *Env) shutdownWatchdog() *time.Timer {
	return time.AfterFunc(e.Config.ShutdownGracePeriod+queue.AbandonAfter+2*time.Second, func() {
		e.Log.Error("shutdown did not finish within the grace period; exiting now", "grace", e.Config.ShutdownGracePeriod)
		os.Exit(1)
	})
}

func fetchCmd(cfg *Config) *cobra.Command {
	return &cobra.Command{
		Use:   "fetch",
		Short: "Fetch every due source once, then exit",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return withEnv(cmd, cfg, func(ctx context.Context, e *Env) error {
				start := time.Now()
				n, err := e.fetchOnce(ctx)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "Fetched %d source(s) in %s.\n", n, time.Since(start).Round(time.Millisecond))
				// A fetch that failed is not counted above: say that some sources fail, and where to look.
				if sum, err := e.Svc.Sources.Summary(ctx, app.DefaultUserID); err == nil && sum.Errors > 0 {
					fmt.Fprintf(cmd.OutOrStdout(), "%d source(s) failing: see morningdeck source list.\n", sum.Errors)
				}
				return nil
			})
		},
	}
}

// fetchOnce queues every due source and runs the workers until the fetch queue is drained.
func (e *Env) fetchOnce(ctx context.Context) (int, error) {
	began := time.Now()
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- e.FetchQ.Run(runCtx) }()
	total := 0
	for {
		n, err := e.Svc.Sources.QueueDue(ctx, e.Config.FetchQueueCapacity)
		if err != nil {
			cancel()
			<-done
			return total, err
		}
		total += n
		for {
			size, err := e.FetchQ.Size(ctx)
			if err != nil || size == 0 || ctx.Err() != nil {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if n == 0 || ctx.Err() != nil {
			break
		}
	}
	cancel()
	<-done
	// Count what was fetched, whoever queued it (the scheduler, or an add or refresh earlier).
	total, err := e.Svc.Care.FetchedSince(ctx, began)
	if err != nil {
		return total, err
	}
	return total, e.Svc.Care.Index(ctx)
}

func workerCmd(cfg *Config) *cobra.Command {
	return &cobra.Command{
		Use:   "worker",
		Short: "Run the schedulers and worker pools without the web server",
		Long: "Run the fetch, processing, briefing and email schedulers and workers without the web server\n" +
			"(run `morningdeck serve --no-workers` for the web app). Several processes on one database\n" +
			"file share the work: each job runs once.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			e, err := open(ctx, cfg)
			if err != nil {
				return err
			}
			defer e.DB.Close()
			workCtx, stopWork := context.WithCancel(context.Background())
			defer stopWork()
			wg := e.runWorkers(workCtx)
			e.Log.Info("Morning Deck workers are running", "data", cfg.DatabaseName(), "version", opts.Version, "pid", os.Getpid())
			<-ctx.Done()
			e.Log.Info("shutting down: finishing running jobs", "grace", cfg.ShutdownGracePeriod)
			defer e.shutdownWatchdog().Stop()
			stopWork()
			wg.Wait()
			e.Log.Info("stopped")
			return nil
		},
	}
}
