// Command morningdeck is a self-hosted news briefing app: it follows feeds, web pages and
// subreddits and serves a calm, ranked reading list on localhost.
//
// main.go is the wiring: it builds the database, the queues and the services once, in
// dependency order, and hands them to the commands (package cli), which only use them.
package main

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/enrich"
	"github.com/morningdeck/morningdeck/app/feeds"
	"github.com/morningdeck/morningdeck/app/greader"
	"github.com/morningdeck/morningdeck/app/mail"
	"github.com/morningdeck/morningdeck/app/metrics"
	"github.com/morningdeck/morningdeck/app/saveto"
	"github.com/morningdeck/morningdeck/app/taste"
	"github.com/morningdeck/morningdeck/cli"
	"github.com/morningdeck/morningdeck/postgres"
	"github.com/morningdeck/morningdeck/queue"
	"github.com/morningdeck/morningdeck/sqlite"
)

// Set by the release build (goreleaser ldflags).
var (
	version = "dev"
	commit  = "none"
	date    = "unknown"
)

// testHook is set only in builds with the testhooks tag (testhooks.go), which tests build to
// create conditions no real input can (a job that ignores cancellation). Release builds have none.
var testHook func(ctx context.Context, e *cli.Env)

func main() {
	// The runtime samples allocations for a heap profile nobody reads here (the binary serves
	// no pprof): its buckets were 1.6 MB of a first ingestion's peak RSS (issue 14).
	runtime.MemProfileRate = 0
	os.Exit(cli.Main(cli.Options{Version: version, Commit: commit, Date: date, Open: open, Migrate: migrate}, os.Args[1:]))
}

// open wires the application for a checked configuration.
func open(ctx context.Context, cfg *cli.Config, log *slog.Logger) (*cli.Env, error) {
	prompt := ""
	if cfg.LLMPromptFile != "" {
		b, err := os.ReadFile(cfg.LLMPromptFile)
		if err != nil {
			return nil, fmt.Errorf("--llm-prompt-file: %w", err)
		}
		if err := enrich.ParsePrompt(string(b)); err != nil {
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
	if cfg.Exposed() {
		// Reachable by others: fetching this machine's or its network's addresses (SSRF) is refused.
		allow, err := cli.Prefixes("fetch-allow", cfg.FetchAllow)
		if err != nil {
			return nil, err
		}
		g := feeds.Guard{Allow: allow}
		fo.Transport = feeds.GuardedTransport(fo, g)
		userDial = g.Dialer(10 * time.Second).DialContext
	}
	limits, err := cfg.Limits()
	if err != nil {
		return nil, err
	}
	db, err := openStore(ctx, cfg, log)
	if err != nil {
		return nil, err
	}
	fetcher := feeds.Adapter{Fetcher: feeds.New(fo)}
	// Mail folders (issue 30): their passwords are sealed with a key kept beside the database,
	// never in it (nor in its backups).
	secrets, err := app.LoadSecretBox(cfg.SecretKeyPath())
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	mailReader := feeds.NewMail(feeds.MailOptions{Dial: userDial})
	q := queue.Options{Store: db, Timeout: cfg.ProcessJobTimeout, ShutdownGrace: cfg.ShutdownGracePeriod, Log: log}
	embedded := enrich.NewEmbedded(enrich.EmbeddedOptions{})
	e := &cli.Env{Config: cfg, Log: log, DB: db,
		FetchQ: queue.NewFetchQueue(queue.FetchQueueOptions{Store: db, Capacity: cfg.FetchQueueCapacity,
			Workers: cfg.FetchWorkers, Timeout: cfg.FetchJobTimeout, ShutdownGrace: cfg.ShutdownGracePeriod, Log: log}),
		ProcessQ: queue.NewProcessQueue(queue.ProcessQueueOptions{Store: db, Capacity: cfg.ProcessQueueCapacity,
			Workers: cfg.ProcessWorkers, Timeout: cfg.ProcessJobTimeout, ShutdownGrace: cfg.ShutdownGracePeriod, Log: log}),
		BriefingQ: queue.NewBriefingQueue(q),
	}
	q.BaseBackoff = 30 * time.Second
	e.EmailQ = queue.NewEmailQueue(q)
	var models []string
	for _, m := range cfg.LLMModels {
		if m = strings.TrimSpace(m); m != "" {
			models = append(models, m)
		}
	}
	e.Chooser = &enrich.Chooser{Default: cfg.Enricher, Embedded: embedded, Settings: db, Log: log, Dial: userDial, Exposed: cfg.Exposed(), Models: models,
		LLM: enrich.LLMOptions{BaseURL: cfg.LLMBaseURL, Model: cfg.LLMModel, APIKey: cfg.LLMAPIKey, Timeout: cfg.LLMTimeout,
			MaxConcurrent: cfg.LLMConcurrency, PromptTemplate: prompt, Log: log}}
	e.Admin = &queue.Admin{List: []*queue.Queue{e.FetchQ.Queue, e.ProcessQ.Queue, e.BriefingQ.Queue, e.EmailQ.Queue},
		Capacities: map[string]int{"fetch": cfg.FetchQueueCapacity, "process": cfg.ProcessQueueCapacity},
		Store:      db, StuckThreshold: cfg.StuckThreshold}
	e.Mailer = &mail.Mailer{Default: cfg.SMTP, Settings: db, BaseURL: cmp.Or(cfg.BaseURL, "http://"+cfg.Addr), Dial: userDial, Exposed: cfg.Exposed(),
		Unsubscribes: &app.Unsubscribes{Store: db}}
	// Learning from the reader (issue 12): the Feedback service trains each user's reading
	// model; Enriching scores with it, and scores first imports and re-scores with the embedded
	// enricher in the background.
	feedback := app.NewFeedback(db, taste.Trainer{E: embedded}, e.ProcessQ, log)
	var fallback app.Enricher
	if cfg.LLMFallback {
		fallback = embedded
	}
	enriching := &app.Enriching{Store: db, Queue: e.ProcessQ, Enrichers: e.Chooser, Fallback: fallback, Articles: fetcher, Observer: embedded.Stats(),
		Tastes: feedback, Offline: embedded, Scoring: db, Imports: e.ProcessQ, Log: log}
	dailyLimit := 0
	if cfg.Exposed() {
		dailyLimit = cfg.MailDailyLimit
	}
	deliveries := app.NewDeliveries(db, e.EmailQ, e.Mailer, log, dailyLimit)
	e.Svc = &app.Services{
		Sources: &app.Sources{Store: db, Queue: e.FetchQ, Detector: feeds.Detector{Fetcher: fetcher.Fetcher}, Log: log,
			Fetches: db, Fetcher: fetcher, NewItems: enriching.Pend, FirstImport: e.ProcessQ.EnqueueImportTx, ScoreFirst: enriching.ScoreFirstImport, Icons: fetcher, Limits: limits,
			Mail: mailReader, Mailboxes: db, Secrets: secrets},
		Reading:    &app.Reading{Store: db, Queue: e.ProcessQ, Feedback: feedback, Articles: fetcher},
		Settings:   app.NewUserSettings(db, feedback, e.Chooser.Operator(), log),
		Enriching:  enriching,
		Deliveries: deliveries,
		Briefings: &app.Briefings{Store: db, Queue: e.BriefingQ, Ranker: enrich.Ranker{Embedded: embedded}, Writer: e.Chooser,
			Emails: deliveries.QueueTx, Log: log, Limits: limits},
		Accounts: &app.Accounts{Store: db},
		Care:     &app.Care{Store: db, Path: cfg.DatabaseName(), RetentionDays: cfg.RetentionDays, BackupDir: cfg.BackupDir, BackupKeep: cfg.BackupKeep, Log: log},
		Queues:   e.Admin,
		Feedback: feedback,
		Saving: &app.Saving{Settings: db, Items: db, Sources: db, Log: log,
			Sender: &saveto.Sender{Dial: userDial, UserAgent: fo.UserAgent}},
	}
	e.Reader = &greader.Reader{Store: db, Sources: e.Svc.Sources}
	queue.HandleFetch(e.FetchQ, e.Svc.Sources)
	queue.HandleProcess(e.ProcessQ, e.Svc.Enriching)
	queue.HandleScoring(e.ProcessQ, e.Svc.Enriching)
	queue.HandleBriefings(e.BriefingQ, e.Svc.Briefings)
	queue.HandleEmail(e.EmailQ, e.Svc.Deliveries)
	metrics.WatchQueues(e.Admin.Sizes)
	if testHook != nil {
		testHook(ctx, e)
	}
	return e, nil
}

// store is every store the services, queues and commands use: the database, SQLite's file
// (sqlite.DB) by default, or a PostgreSQL database (postgres.DB) with --database.
type store interface {
	cli.Database
	queue.Store
	queue.StuckStore
	app.SourceStore
	app.FetchStore
	app.ItemStore
	app.ReadingStore
	app.EnrichingStore
	app.ScoringStore
	app.FeedbackStore
	app.BriefingRunStore
	app.DeliveryStore
	app.AccountStore
	app.SettingsStore
	app.MailboxStore
	app.CareStore
	greader.Store
}

var (
	_ store = (*sqlite.DB)(nil)
	_ store = (*postgres.DB)(nil)
)

// openStore opens the database the configuration names.
func openStore(ctx context.Context, cfg *cli.Config, log *slog.Logger) (store, error) {
	if cfg.Database != "" {
		if !strings.HasPrefix(cfg.Database, "postgres://") && !strings.HasPrefix(cfg.Database, "postgresql://") {
			return nil, fmt.Errorf("--database %s: give a PostgreSQL database as postgres://user:password@host:5432/name (the SQLite file is the default, in --data-dir)", cli.RedactURL(cfg.Database))
		}
		db, err := postgres.Open(ctx, postgres.Options{URL: cfg.Database, Log: log})
		if err != nil {
			return nil, fmt.Errorf("cannot open the database %s: %w", cli.RedactURL(cfg.Database), err)
		}
		return db, nil
	}
	path := filepath.Join(cfg.DataDir, "morningdeck.db")
	startCheck := time.Duration(0) // the default bound
	if cfg.Short {
		startCheck = -1
	}
	db, err := sqlite.Open(ctx, sqlite.Options{Path: path, Log: log, BusyTimeout: cfg.DBBusyTimeout, StartCheck: startCheck})
	if err != nil {
		return nil, fmt.Errorf("cannot open the database %s: %w", path, err)
	}
	return db, nil
}

// migrate copies the SQLite file of --data-dir into the PostgreSQL database to (resuming a copy
// begun earlier) and verifies every table; verifyOnly only verifies.
func migrate(ctx context.Context, cfg *cli.Config, to string, verifyOnly bool, say func(format string, args ...any)) error {
	path := filepath.Join(cfg.DataDir, "morningdeck.db")
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("no SQLite database to copy: %w", err)
	}
	lite, err := sqlite.Open(ctx, sqlite.Options{Path: path, BusyTimeout: cfg.DBBusyTimeout})
	if err != nil {
		return fmt.Errorf("cannot open the database %s: %w", path, err)
	}
	defer lite.Close()
	pg, err := postgres.Open(ctx, postgres.Options{URL: to})
	if err != nil {
		return fmt.Errorf("cannot open the database %s: %w", cli.RedactURL(to), err)
	}
	defer pg.Close()
	if !verifyOnly {
		start := time.Now()
		last := ""
		res, err := pg.CopyFromSQLite(ctx, lite.Read, postgres.CopyOptions{Progress: func(table string, rows int) {
			if table != last {
				say("copying %s…", table)
				last = table
			}
		}})
		if err != nil {
			return fmt.Errorf("the copy stopped (run the same command again to go on): %w", err)
		}
		n := 0
		for _, r := range res.Rows {
			n += r
		}
		verb := "Copied"
		if res.Resumed {
			verb = "Went on copying:"
		}
		say("%s %d rows in %v.", verb, n, time.Since(start).Round(time.Millisecond))
	}
	checks, err := pg.VerifyFromSQLite(ctx, lite.Read)
	if err != nil {
		return err
	}
	bad := 0
	for _, c := range checks {
		mark := "ok"
		if !c.Equal {
			mark, bad = "DIFFERENT", bad+1
		}
		say("%-16s %8d rows in SQLite, %8d in PostgreSQL  checksum %016x / %016x  %s", c.Table, c.SQLiteRows, c.PGRows, c.SQLiteSum, c.PGSum, mark)
	}
	if bad > 0 {
		return fmt.Errorf("%d tables differ: was Morning Deck still running on the SQLite file, or the PostgreSQL database written to since?", bad)
	}
	say("Verified: every table is the same in %s. Run Morning Deck with --database (MORNINGDECK_DATABASE_URL) set to it.", cli.RedactURL(to))
	return nil
}
