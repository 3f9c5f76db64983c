package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/enrich"
	"github.com/morningdeck/morningdeck/app/greader"
	"github.com/morningdeck/morningdeck/app/mail"
	"github.com/morningdeck/morningdeck/queue"
)

// Database is the store under the services as the commands see it (sqlite.DB, postgres.DB):
// closing it, the search indexer's step, and the unsubscribe links' store. What only SQLite has
// (its checkpointer, its writer's queue) is looked for by the commands that use it.
type Database interface {
	Close() error
	IndexItems(ctx context.Context, batch int) (int, error)
	app.UnsubscribeStore
}

// Env is the wired application: the database, the queues and the services every door (web,
// CLI, workers) goes through. main.go builds it (Options.Open); the commands only use it.
type Env struct {
	Config *Config
	Log    *slog.Logger
	DB     Database

	FetchQ    *queue.FetchQueue
	ProcessQ  *queue.ProcessQueue
	BriefingQ *queue.BriefingQueue
	EmailQ    *queue.EmailQueue
	Admin     *queue.Admin

	Svc     *app.Services
	Reader  *greader.Reader // the Google Reader API's protocol, over the services
	Chooser *enrich.Chooser
	Mailer  *mail.Mailer // its BaseURL is the listener's address when serve binds one and --base-url is unset
}

// Opener wires the application for a validated configuration and its logger.
type Opener func(ctx context.Context, cfg *Config, log *slog.Logger) (*Env, error)

// Options are what the program gives the commands: its version and how to wire the application.
type Options struct {
	Version, Commit, Date string
	Open                  Opener
	Migrate               Migrator // `morningdeck migrate --to`
}

// opts is set once by Main, before any command runs.
var opts Options

// Main runs the command line args and returns the process's exit code.
func Main(o Options, args []string) int {
	opts = o
	tuneGC(gcLimit)
	root := newRoot()
	root.SetArgs(args)
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "Error:", plainMessage(err))
		return 1
	}
	return 0
}

// Validate refuses settings that no wiring can use.
func (c *Config) Validate() error {
	if c.FetchWorkers < 1 || c.FetchQueueCapacity < 1 || c.FetchBatchSize < 1 {
		return errors.New("--fetch-workers, --fetch-queue-capacity and --fetch-batch-size must be at least 1")
	}
	if c.Enricher != app.EnricherEmbedded && c.Enricher != app.EnricherLLM {
		return fmt.Errorf("--enricher %q: use embedded or llm", c.Enricher)
	}
	return c.SMTP.Validate()
}

// open checks the configuration, makes its logger and wires the application.
func open(ctx context.Context, cfg *Config) (*Env, error) {
	log, err := newLogger(cfg, os.Stderr)
	if err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return opts.Open(ctx, cfg, log)
}

// withServices opens the application for a command that only needs its services.
func withServices(cmd *cobra.Command, cfg *Config, fn func(ctx context.Context, svc *app.Services) error) error {
	cfg.Short = true
	return withEnv(cmd, cfg, func(ctx context.Context, e *Env) error { return fn(ctx, e.Svc) })
}

// withEnv opens the application for a command that runs pipelines (serve, worker, fetch, brief run).
func withEnv(cmd *cobra.Command, cfg *Config, fn func(ctx context.Context, e *Env) error) error {
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	e, err := open(ctx, cfg)
	if err != nil {
		return err
	}
	defer e.DB.Close()
	return fn(ctx, e)
}
