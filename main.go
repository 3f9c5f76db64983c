// Command morningdeck is a self-hosted news briefing app: it follows feeds, web pages and
// subreddits and serves a calm, ranked reading list on localhost.
//
// main.go holds the wiring: the database, queues and services in one struct, the pipelines,
// serve and worker. The configuration (flags, environment, file) is in config.go; the other
// commands are in cmd_*.go, named for the command, and reach the data through app.Services only.
package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"text/template"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/cobra"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/enrich"
	"github.com/morningdeck/morningdeck/app/feeds"
	"github.com/morningdeck/morningdeck/app/greader"
	"github.com/morningdeck/morningdeck/app/mail"
	"github.com/morningdeck/morningdeck/app/metrics"
	"github.com/morningdeck/morningdeck/queue"
	"github.com/morningdeck/morningdeck/sqlite"
	"github.com/morningdeck/morningdeck/views"
)

// Set by the release build (goreleaser ldflags).
var (
	version = "dev"
	commit  = "none"
	date    = "unknown"
)

const defaultAddr = "127.0.0.1:7777"

// testHook is set only in builds with the testhooks tag (testhooks.go), which tests build to
// create conditions no real input can (a job that ignores cancellation). Release builds have none.
var testHook func(ctx context.Context, e *env)

func main() {
	// The runtime samples allocations for a heap profile nobody reads here (the binary serves
	// no pprof): its buckets were 1.6 MB of a first ingestion's peak RSS (issue 14).
	runtime.MemProfileRate = 0
	tuneGC(gcLimit)
	if err := newRoot().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(1)
	}
}

// env is the wired application: the database, the queues and the services every door
// (web, CLI, workers) goes through.
type env struct {
	cfg *config
	log *slog.Logger
	db  *sqlite.DB

	fetchQ    *queue.FetchQueue
	processQ  *queue.ProcessQueue
	briefingQ *queue.BriefingQueue
	emailQ    *queue.EmailQueue
	admin     *queue.Admin

	svc      *app.Services
	embedded *enrich.Embedded
	chooser  *enrich.Chooser
	mailer   *mail.Mailer // its BaseURL is the listener's address when serve binds one and --base-url is unset
}

func open(ctx context.Context, cfg *config) (*env, error) {
	log, err := newLogger(cfg, os.Stderr)
	if err != nil {
		return nil, err
	}
	if cfg.FetchWorkers < 1 || cfg.FetchQueueCapacity < 1 || cfg.FetchBatchSize < 1 {
		return nil, errors.New("--fetch-workers, --fetch-queue-capacity and --fetch-batch-size must be at least 1")
	}
	if cfg.Enricher != app.EnricherEmbedded && cfg.Enricher != app.EnricherLLM {
		return nil, fmt.Errorf("--enricher %q: use embedded or llm", cfg.Enricher)
	}
	if err := cfg.SMTP.Validate(); err != nil {
		return nil, err
	}
	prompt := ""
	if cfg.LLMPromptFile != "" {
		b, err := os.ReadFile(cfg.LLMPromptFile)
		if err != nil {
			return nil, fmt.Errorf("--llm-prompt-file: %w", err)
		}
		if _, err := template.New("prompt").Parse(string(b)); err != nil {
			return nil, fmt.Errorf("--llm-prompt-file %s is not a valid template: %w", cfg.LLMPromptFile, err)
		}
		prompt = string(b)
	}
	if cfg.LLMModel == "" && cfg.Enricher == app.EnricherLLM {
		log.Warn("the LLM enricher needs --llm-model (MORNINGDECK_LLM_MODEL); using the embedded enricher")
	}
	fo := feeds.Options{UserAgent: feeds.DefaultUserAgent(), Timeout: cfg.HTTPTimeout, MaxBodyBytes: cfg.FetchMaxBody}
	// userDial connects to the LLM and SMTP servers users chose, when exposed: the fetch guard.
	var userDial func(ctx context.Context, network, address string) (net.Conn, error)
	if cfg.exposed() {
		// Reachable by others: fetching this machine's or its network's addresses (SSRF) is refused.
		g := feeds.Guard{}
		for _, a := range cfg.FetchAllow {
			p, err := netip.ParsePrefix(strings.TrimSpace(a))
			if err != nil {
				addr, aerr := netip.ParseAddr(strings.TrimSpace(a))
				if aerr != nil {
					return nil, fmt.Errorf("--fetch-allow %q: give an address (192.168.1.10) or a CIDR range (10.0.0.0/8)", a)
				}
				p = netip.PrefixFrom(addr, addr.BitLen())
			}
			g.Allow = append(g.Allow, p.Masked())
		}
		fo.Transport = feeds.GuardedTransport(fo, g)
		userDial = g.Dialer(10 * time.Second).DialContext
	}
	path := filepath.Join(cfg.DataDir, "morningdeck.db")
	db, err := sqlite.Open(ctx, sqlite.Options{Path: path, Log: log, BusyTimeout: cfg.DBBusyTimeout})
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	fetcher := feeds.Adapter{Fetcher: feeds.New(fo)}
	q := queue.Options{Store: db, Timeout: cfg.ProcessJobTimeout, ShutdownGrace: cfg.ShutdownGracePeriod, Log: log}
	e := &env{cfg: cfg, log: log, db: db,
		fetchQ: queue.NewFetchQueue(queue.FetchQueueOptions{Store: db, Capacity: cfg.FetchQueueCapacity,
			Workers: cfg.FetchWorkers, Timeout: cfg.FetchJobTimeout, ShutdownGrace: cfg.ShutdownGracePeriod, Log: log}),
		processQ: queue.NewProcessQueue(queue.ProcessQueueOptions{Store: db, Capacity: cfg.ProcessQueueCapacity,
			Workers: cfg.ProcessWorkers, Timeout: cfg.ProcessJobTimeout, ShutdownGrace: cfg.ShutdownGracePeriod, Log: log}),
		briefingQ: queue.NewBriefingQueue(q),
		embedded:  enrich.NewEmbedded(enrich.EmbeddedOptions{}),
	}
	q.BaseBackoff = 30 * time.Second
	e.emailQ = queue.NewEmailQueue(q)
	e.chooser = &enrich.Chooser{Default: cfg.Enricher, Embedded: e.embedded, Settings: db, Log: log, Dial: userDial, Exposed: cfg.exposed(),
		LLM: enrich.LLMOptions{BaseURL: cfg.LLMBaseURL, Model: cfg.LLMModel, APIKey: cfg.LLMAPIKey, Timeout: cfg.LLMTimeout,
			MaxConcurrent: cfg.LLMConcurrency, PromptTemplate: prompt, Log: log}}
	e.admin = &queue.Admin{List: []*queue.Queue{e.fetchQ.Queue, e.processQ.Queue, e.briefingQ.Queue, e.emailQ.Queue},
		Capacities: map[string]int{"fetch": cfg.FetchQueueCapacity, "process": cfg.ProcessQueueCapacity},
		Store:      db, StuckThreshold: cfg.StuckThreshold}
	e.mailer = &mail.Mailer{Default: cfg.SMTP, Settings: db, BaseURL: cmp.Or(cfg.BaseURL, "http://"+cfg.Addr), Dial: userDial, Exposed: cfg.exposed(),
		Unsubscribes: &app.Unsubscribes{Store: db}}
	// Each service is built once, complete, after what it depends on. Learning from the reader
	// (issue 12): the Feedback service trains each user's reading model; Enriching scores with
	// it, and scores first imports and re-scores with the embedded enricher in the background.
	feedback := app.NewFeedback(db, enrich.Trainer{E: e.embedded}, e.processQ, log)
	var fallback app.Enricher
	if cfg.LLMFallback {
		fallback = e.embedded
	}
	enriching := &app.Enriching{Store: db, Queue: e.processQ, Enrichers: e.chooser, Fallback: fallback, Articles: fetcher, Observer: e.embedded.Stats(),
		Tastes: feedback, Offline: e.embedded, Scoring: db, Imports: e.processQ, Log: log}
	dailyLimit := 0
	if cfg.exposed() {
		dailyLimit = cfg.MailDailyLimit
	}
	deliveries := app.NewDeliveries(db, e.emailQ, e.mailer, log, dailyLimit)
	e.svc = &app.Services{
		Sources: &app.Sources{Store: db, Queue: e.fetchQ, Detector: feeds.Detector{Fetcher: fetcher.Fetcher}, Log: log,
			Fetches: db, Fetcher: fetcher, NewItems: enriching.Pend, FirstImport: e.processQ.EnqueueImportTx, ScoreFirst: enriching.ScoreFirstImport, Icons: fetcher},
		Reading:    app.NewReading(db, e.processQ, feedback),
		Settings:   app.NewUserSettings(db, feedback, log),
		Enriching:  enriching,
		Deliveries: deliveries,
		Briefings: &app.Briefings{Store: db, Queue: e.briefingQ, Ranker: enrich.Ranker{Embedded: e.embedded}, Writer: e.chooser,
			Emails: deliveries.QueueTx, Log: log},
		Accounts: &app.Accounts{Store: db},
		Care:     &app.Care{Store: db, Path: db.Path, RetentionDays: cfg.RetentionDays, BackupDir: cfg.BackupDir, BackupKeep: cfg.BackupKeep, Log: log},
		Queues:   e.admin,
		Feedback: feedback,
	}
	queue.HandleFetch(e.fetchQ, e.svc.Sources)
	queue.HandleProcess(e.processQ, e.svc.Enriching)
	queue.HandleScoring(e.processQ, e.svc.Enriching)
	queue.HandleBriefings(e.briefingQ, e.svc.Briefings)
	queue.HandleEmail(e.emailQ, e.svc.Deliveries)
	metrics.WatchQueues(e.admin.Sizes)
	if testHook != nil {
		testHook(ctx, e)
	}
	return e, nil
}

// runWorkers runs the pipelines until ctx is done, then shuts them down gracefully. Every
// background loop of the program starts here.
func (e *env) runWorkers(ctx context.Context) *sync.WaitGroup {
	var wg sync.WaitGroup
	cfg := e.cfg
	run := func(q *queue.Queue, every time.Duration, cycles ...*queue.Scheduler) {
		wg.Go(func() { _ = q.Run(ctx) })
		for _, c := range cycles {
			c.Interval = cmp.Or(c.Interval, every)
			c.Log = e.log
			wg.Go(func() { c.Run(ctx) })
		}
	}
	recovery := func(entity string, reset func(context.Context, time.Time) ([]int64, error)) *queue.Scheduler {
		return &queue.Scheduler{Name: entity + " recovery", Interval: cfg.RecoveryInterval, Cycle: queue.Recovery(entity, reset, cfg.StuckThreshold, nil, e.log)}
	}
	if cfg.FetchEnabled {
		run(e.fetchQ.Queue, cfg.FetchInterval,
			&queue.Scheduler{Name: "fetch scheduler", Cycle: func(ctx context.Context) (int, error) { return e.svc.Sources.QueueDue(ctx, cfg.FetchBatchSize) }},
			recovery("source", e.svc.Sources.ResetStuck))
	}
	if cfg.ProcessEnabled {
		e.svc.Enriching.Learn(ctx, 5000)
		if _, err := e.svc.Enriching.QueueUnscoredImports(ctx); err != nil {
			e.log.Warn("back catalogues not queued for scoring", "error", err)
		}
		run(e.processQ.Queue, cfg.ProcessInterval,
			&queue.Scheduler{Name: "process scheduler", Cycle: func(ctx context.Context) (int, error) { return e.svc.Enriching.QueueNew(ctx, cfg.ProcessBatchSize) }},
			recovery("item", e.svc.Enriching.ResetStuck))
	}
	if cfg.BriefingEnabled {
		run(e.briefingQ.Queue, cfg.BriefingInterval,
			&queue.Scheduler{Name: "briefing scheduler", Cycle: e.svc.Briefings.QueueDue},
			recovery("briefing", e.svc.Briefings.ResetStuck))
		run(e.emailQ.Queue, 0)
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
				if _, err := e.svc.Sources.RefreshIcons(ctx, 20); err != nil && ctx.Err() == nil {
					e.log.Warn("icon refresh failed", "error", err)
				}
			})
		})
	}
	wg.Go(func() {
		if err := e.db.Checkpoints(ctx, 500*time.Millisecond); err != nil {
			e.log.Warn("background checkpoints not running; SQLite checkpoints as it writes", "component", "sqlite", "error", err)
		}
	})
	wg.Go(func() {
		queue.Every(ctx, 30*time.Second, func() {
			if _, err := e.db.CheckpointWAL(ctx, sqlite.WALLimit); err != nil && ctx.Err() == nil {
				e.log.Warn("WAL checkpoint failed", "component", "sqlite", "error", err)
			}
		})
	})
	wg.Go(func() {
		queue.Every(ctx, time.Hour, func() {
			for _, q := range e.admin.List {
				if err := q.Cleanup(ctx); err != nil && ctx.Err() == nil {
					e.log.Warn("queue cleanup failed", "queue", q.Name(), "error", err)
				}
			}
			e.svc.Care.Daily(ctx, time.Now())
		})
	})
	return &wg
}

// indexLoop adds new items to the search index every couple of seconds: all of them, batch
// after batch, unless fetch results are waiting for the write connection — then one batch a
// tick, and the rest once the burst is over (a first ingestion of 20,000 items had the index
// hold the writer for 16 batches in a row, ~1.3 s, while fetches waited behind it).
func (e *env) indexLoop(ctx context.Context) {
	queue.Every(ctx, 2*time.Second, func() {
		for ctx.Err() == nil {
			n, err := e.db.IndexItems(ctx, app.IndexBatch)
			if err != nil {
				if ctx.Err() == nil {
					e.log.Warn("search indexing failed", "error", err)
				}
				return
			}
			if n < app.IndexBatch || e.db.WritesWaiting() {
				return
			}
		}
	})
}

func serve(cmd *cobra.Command, cfg *config) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	e, err := open(ctx, cfg)
	if err != nil {
		return err
	}
	defer e.db.Close()

	requireLogin := cfg.exposed()
	if requireLogin {
		if err := ensureAdmin(cmd, cfg, e.svc.Accounts); err != nil {
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
		e.mailer.BaseURL = listenURL(ln.Addr()) // the port really bound (":0", or the next free one); --base-url wins
	}
	handler := views.New(views.Options{
		Sources: e.svc.Sources, Log: e.log, Version: version,
		ImportOPML: func(ctx context.Context, userID int64, r io.Reader) (int, int, []string, error) {
			res, err := e.svc.Sources.ImportOPML(ctx, userID, r, nil)
			if res == nil {
				return 0, 0, nil, err
			}
			return res.Added, res.Skipped, res.Errors, err
		},
		ExportOPML:   e.svc.Sources.ExportOPML,
		Reading:      e.svc.Reading,
		Feedback:     e.svc.Feedback,
		Settings:     e.svc.Settings,
		Enricher:     views.EnricherInfo{Default: cfg.Enricher, LLMConfigured: e.chooser.Configured(), LLMModel: cfg.LLMModel, LLMBaseURL: cfg.LLMBaseURL},
		TestLLM:      e.chooser.TestLLM,
		Briefings:    e.svc.Briefings,
		Deliveries:   e.svc.Deliveries,
		Unsubscribes: &app.Unsubscribes{Store: e.db},
		Queues:       e.admin,
		Accounts:     e.svc.Accounts,
		Reader:       &greader.Reader{Store: e.db, Sources: e.svc.Sources},
		RequireLogin: requireLogin,
		DataCare:     views.DataCareInfo{RetentionDays: cfg.RetentionDays, BackupDir: cfg.BackupDir, BackupKeep: cfg.BackupKeep, DBPath: e.db.Path},
		Metrics:      promhttp.HandlerFor(metrics.Registry, promhttp.HandlerOpts{ErrorLog: slog.NewLogLogger(e.log.Handler(), slog.LevelWarn)}),
	})
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}

	workCtx, stopWork := context.WithCancel(context.Background())
	wg := &sync.WaitGroup{}
	if !cfg.NoWorkers {
		wg = e.runWorkers(workCtx)
	}
	url := "http://" + ln.Addr().String() + "/"
	e.log.Info("Morning Deck is running", "url", url, "data", e.db.Path, "version", version)
	fmt.Fprintf(cmd.OutOrStdout(), "Morning Deck is running at %s\n", url)
	if !cfg.NoBrowser {
		go launchBrowser(e.log, url)
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
	e.log.Info("shutting down: finishing running jobs", "grace", cfg.ShutdownGracePeriod)
	defer e.shutdownWatchdog().Stop()
	// Requests in flight and running jobs get the same grace, at the same time.
	stopWork()
	shutCtx, cancel := context.WithTimeout(context.Background(), min(cfg.ShutdownGracePeriod, 5*time.Second))
	defer cancel()
	_ = srv.Shutdown(shutCtx)
	wg.Wait()
	e.log.Info("stopped")
	return nil
}

// shutdownWatchdog ends the process if shutting down takes longer than the grace period and a
// few seconds (the queues give up on jobs that ignore cancellation after queue.AbandonAfter;
// this is the backstop for anything else that does not return). Unfinished jobs come back
// after their timeout, as after a crash.
func (e *env) shutdownWatchdog() *time.Timer {
	return time.AfterFunc(e.cfg.ShutdownGracePeriod+queue.AbandonAfter+2*time.Second, func() {
		e.log.Error("shutdown did not finish within the grace period; exiting now", "grace", e.cfg.ShutdownGracePeriod)
		os.Exit(1)
	})
}

// withServices opens the application for a command that only needs its services.
func withServices(cmd *cobra.Command, cfg *config, fn func(ctx context.Context, svc *app.Services) error) error {
	return withEnv(cmd, cfg, func(ctx context.Context, e *env) error { return fn(ctx, e.svc) })
}

// withEnv opens the application for a command that runs pipelines (serve, worker, fetch, brief run).
func withEnv(cmd *cobra.Command, cfg *config, fn func(ctx context.Context, e *env) error) error {
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	e, err := open(ctx, cfg)
	if err != nil {
		return err
	}
	defer e.db.Close()
	return fn(ctx, e)
}

func fetchCmd(cfg *config) *cobra.Command {
	return &cobra.Command{
		Use:   "fetch",
		Short: "Fetch every due source once, then exit",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return withEnv(cmd, cfg, func(ctx context.Context, e *env) error {
				start := time.Now()
				n, err := e.fetchOnce(ctx)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "Fetched %d source(s) in %s.\n", n, time.Since(start).Round(time.Millisecond))
				// A fetch that failed is not counted above: say that some sources fail, and where to look.
				if sum, err := e.svc.Sources.Summary(ctx, app.DefaultUserID); err == nil && sum.Errors > 0 {
					fmt.Fprintf(cmd.OutOrStdout(), "%d source(s) failing: see morningdeck source list.\n", sum.Errors)
				}
				return nil
			})
		},
	}
}

// fetchOnce queues every due source and runs the workers until the fetch queue is drained.
func (e *env) fetchOnce(ctx context.Context) (int, error) {
	began := time.Now()
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- e.fetchQ.Run(runCtx) }()
	total := 0
	for {
		n, err := e.svc.Sources.QueueDue(ctx, e.cfg.FetchQueueCapacity)
		if err != nil {
			cancel()
			<-done
			return total, err
		}
		total += n
		for {
			size, err := e.fetchQ.Size(ctx)
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
	total, err := e.svc.Care.FetchedSince(ctx, began)
	if err != nil {
		return total, err
	}
	return total, e.svc.Care.Index(ctx)
}

func workerCmd(cfg *config) *cobra.Command {
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
			defer e.db.Close()
			workCtx, stopWork := context.WithCancel(context.Background())
			defer stopWork()
			wg := e.runWorkers(workCtx)
			e.log.Info("Morning Deck workers are running", "data", e.db.Path, "version", version, "pid", os.Getpid())
			<-ctx.Done()
			e.log.Info("shutting down: finishing running jobs", "grace", cfg.ShutdownGracePeriod)
			defer e.shutdownWatchdog().Stop()
			stopWork()
			wg.Wait()
			e.log.Info("stopped")
			return nil
		},
	}
}
