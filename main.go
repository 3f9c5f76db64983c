// Command morningdeck is a self-hosted news briefing app: it follows feeds, web pages and
// subreddits and serves a calm, ranked reading list on localhost.
//
// This file holds the cobra commands and the wiring only.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/adrg/xdg"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/feeds"
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

// config is every knob, set by flag, else MORNINGDECK_* environment variable, else default.
type config struct {
	DataDir   string
	LogLevel  string
	LogFormat string

	Addr      string
	NoBrowser bool
	NoWorkers bool

	FetchEnabled        bool
	FetchWorkers        int
	FetchQueueCapacity  int
	FetchInterval       time.Duration
	FetchBatchSize      int
	FetchTimeout        time.Duration
	FetchMaxBody        int64
	StuckThreshold      time.Duration
	RecoveryInterval    time.Duration
	FetchJobTimeout     time.Duration
	HTTPTimeout         time.Duration
	ShutdownGracePeriod time.Duration
}

func main() {
	if err := newRoot().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(1)
	}
}

func newRoot() *cobra.Command {
	cfg := &config{}
	root := &cobra.Command{
		Use:           "morningdeck",
		Short:         "A calm, self-hosted morning briefing of the sources you follow",
		Long:          "Morning Deck follows feeds, web pages and subreddits and serves one calm, well-ranked reading list on localhost.\nWith no command it starts the web app and opens it in your browser.",
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			return applyEnv(cmd)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return serve(cmd, cfg)
		},
	}
	pf := root.PersistentFlags()
	pf.StringVar(&cfg.DataDir, "data-dir", filepath.Join(xdg.DataHome, "morningdeck"), "directory of the database file")
	pf.StringVar(&cfg.LogLevel, "log-level", "info", "log level: debug, info, warn, error")
	pf.StringVar(&cfg.LogFormat, "log-format", "text", "log format: text or json")
	pf.BoolVar(&cfg.FetchEnabled, "fetch-enabled", true, "run the fetch scheduler and workers")
	pf.IntVar(&cfg.FetchWorkers, "fetch-workers", 4, "number of fetch workers")
	pf.IntVar(&cfg.FetchQueueCapacity, "fetch-queue-capacity", 1000, "most fetch jobs waiting before the scheduler holds back")
	pf.DurationVar(&cfg.FetchInterval, "fetch-scheduler-interval", time.Minute, "how often the fetch scheduler looks for due sources")
	pf.IntVar(&cfg.FetchBatchSize, "fetch-batch-size", 100, "most sources the scheduler enqueues per cycle")
	pf.DurationVar(&cfg.StuckThreshold, "stuck-threshold", 10*time.Minute, "a source QUEUED or FETCHING longer than this is reset")
	pf.DurationVar(&cfg.RecoveryInterval, "recovery-interval", 5*time.Minute, "how often stuck sources are looked for")
	pf.DurationVar(&cfg.FetchJobTimeout, "fetch-job-timeout", time.Minute, "a fetch job of a dead process becomes visible again after this")
	pf.DurationVar(&cfg.HTTPTimeout, "http-timeout", 30*time.Second, "total time limit of one HTTP request")
	pf.Int64Var(&cfg.FetchMaxBody, "max-body-bytes", 10<<20, "largest response body accepted")
	pf.DurationVar(&cfg.ShutdownGracePeriod, "shutdown-grace", 30*time.Second, "how long running jobs may finish at shutdown")
	root.Flags().StringVar(&cfg.Addr, "addr", defaultAddr, "address to listen on")
	root.Flags().BoolVar(&cfg.NoBrowser, "no-browser", false, "do not open the browser")

	serveCmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the web app and the workers",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return serve(cmd, cfg)
		},
	}
	serveCmd.Flags().StringVar(&cfg.Addr, "addr", defaultAddr, "address to listen on")
	serveCmd.Flags().BoolVar(&cfg.NoBrowser, "no-browser", false, "do not open the browser")
	serveCmd.Flags().BoolVar(&cfg.NoWorkers, "no-workers", false, "serve the web app only; run `morningdeck worker` elsewhere")

	root.AddCommand(serveCmd, sourceCmd(cfg), fetchCmd(cfg), importCmd(cfg), exportCmd(cfg), versionCmd())
	return root
}

// applyEnv sets every flag the command line did not set from MORNINGDECK_<FLAG> (dashes as underscores).
func applyEnv(cmd *cobra.Command) error {
	var errs []error
	visit := func(f *pflag.Flag) {
		if f.Changed {
			return
		}
		name := "MORNINGDECK_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if v, ok := os.LookupEnv(name); ok {
			if err := f.Value.Set(v); err != nil {
				errs = append(errs, fmt.Errorf("%s=%q: %w", name, v, err))
			}
		}
	}
	cmd.Flags().VisitAll(visit)
	cmd.InheritedFlags().VisitAll(visit)
	return errors.Join(errs...)
}

func newLogger(cfg *config, w io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(cfg.LogLevel)); err != nil {
		return nil, fmt.Errorf("--log-level %q: use debug, info, warn or error", cfg.LogLevel)
	}
	opts := &slog.HandlerOptions{Level: level}
	switch cfg.LogFormat {
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	case "text", "":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log-format %q: use text or json", cfg.LogFormat)
}

// env is the wired application.
type env struct {
	cfg     *config
	log     *slog.Logger
	db      *sqlite.DB
	fetcher *feeds.Fetcher
	fetchQ  *queue.FetchQueue
	worker  *queue.FetchWorker
	sources *app.Sources
}

func open(ctx context.Context, cfg *config) (*env, error) {
	log, err := newLogger(cfg, os.Stderr)
	if err != nil {
		return nil, err
	}
	if cfg.FetchWorkers < 1 || cfg.FetchQueueCapacity < 1 || cfg.FetchBatchSize < 1 {
		return nil, errors.New("--fetch-workers, --fetch-queue-capacity and --fetch-batch-size must be at least 1")
	}
	path := filepath.Join(cfg.DataDir, "morningdeck.db")
	db, err := sqlite.Open(ctx, sqlite.Options{Path: path, Log: log})
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	fetcher := feeds.New(feeds.Options{UserAgent: feeds.DefaultUserAgent(), Timeout: cfg.HTTPTimeout, MaxBodyBytes: cfg.FetchMaxBody})
	fq := queue.NewFetchQueue(queue.FetchQueueOptions{DB: db.Write, Read: db.Read, Capacity: cfg.FetchQueueCapacity,
		Workers: cfg.FetchWorkers, Timeout: cfg.FetchJobTimeout, ShutdownGrace: cfg.ShutdownGracePeriod, Log: log})
	w := &queue.FetchWorker{Store: db, Fetcher: fetcher, Log: log}
	w.Register(fq)
	return &env{
		cfg: cfg, log: log, db: db, fetcher: fetcher, fetchQ: fq, worker: w,
		sources: &app.Sources{Store: db, Queue: fq, Detector: feeds.Detector{Fetcher: fetcher}, Log: log},
	}, nil
}

// runWorkers runs the fetch pipeline until ctx is done, then shuts it down gracefully.
func (e *env) runWorkers(ctx context.Context) *sync.WaitGroup {
	var wg sync.WaitGroup
	if !e.cfg.FetchEnabled {
		return &wg
	}
	sched := &queue.Scheduler{Store: e.db, Queue: e.fetchQ, Interval: e.cfg.FetchInterval, BatchSize: e.cfg.FetchBatchSize, Log: e.log}
	rec := &queue.Recovery{Store: e.db, Interval: e.cfg.RecoveryInterval, Threshold: e.cfg.StuckThreshold, Log: e.log}
	wg.Add(4)
	go func() { defer wg.Done(); _ = e.fetchQ.Run(ctx) }()
	go func() { defer wg.Done(); sched.Run(ctx) }()
	go func() { defer wg.Done(); rec.Run(ctx) }()
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Hour)
		defer t.Stop()
		for {
			if err := e.fetchQ.Cleanup(ctx); err != nil && ctx.Err() == nil {
				e.log.Warn("queue cleanup failed", "error", err)
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return &wg
}

func serve(cmd *cobra.Command, cfg *config) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	e, err := open(ctx, cfg)
	if err != nil {
		return err
	}
	defer e.db.Close()

	ln, err := listen(cfg.Addr, !cmd.Flags().Changed("addr"))
	if err != nil {
		return err
	}
	handler := views.New(views.Options{
		Sources: e.sources, Store: e.db, Log: e.log, Version: version,
		ImportOPML: func(ctx context.Context, userID int64, r io.Reader) (int, int, []string, error) {
			res, err := e.sources.ImportOPML(ctx, userID, r, nil)
			if res == nil {
				return 0, 0, nil, err
			}
			return res.Added, res.Skipped, res.Errors, err
		},
		ExportOPML: e.sources.ExportOPML,
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
	shutCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(shutCtx)
	stopWork()
	wg.Wait()
	e.log.Info("stopped")
	return nil
}

// listen binds addr; when the address was not chosen by the user and is taken, it tries the next ports.
func listen(addr string, fallback bool) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err == nil || !fallback {
		if err != nil {
			return nil, fmt.Errorf("listen on %s: %w (choose another with --addr)", addr, err)
		}
		return ln, nil
	}
	host, portStr, _ := net.SplitHostPort(addr)
	port, _ := strconv.Atoi(portStr)
	for p := port + 1; p <= port+20; p++ {
		if ln, err2 := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(p))); err2 == nil {
			return ln, nil
		}
	}
	return nil, fmt.Errorf("listen on %s: %w (choose another with --addr)", addr, err)
}

// launchBrowser opens url in the user's browser when there is a display to show it on.
func launchBrowser(log *slog.Logger, url string) {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
			return // a headless machine: the URL is printed
		}
		cmd = exec.Command("xdg-open", url)
	}
	if err := cmd.Start(); err != nil {
		log.Info("could not open a browser; open the URL yourself", "url", url, "error", err)
		return
	}
	go func() { _ = cmd.Wait() }()
}

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

func sourceCmd(cfg *config) *cobra.Command {
	c := &cobra.Command{Use: "source", Short: "Add, list, remove and refresh sources"}
	var name, typ string
	var interval int
	add := &cobra.Command{
		Use:   "add URL",
		Short: "Follow a feed, a web page or a subreddit (r/NAME)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := app.ValidateInterval(interval); err != nil {
				return err
			}
			return withEnv(cmd, cfg, func(ctx context.Context, e *env) error {
				s, err := e.sources.Add(ctx, app.AddSource{URL: args[0], Name: name, Type: app.SourceType(typ), RefreshIntervalMinutes: interval})
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "Added source %d: %s (%s, every %d min). It is queued for fetching.\n", s.ID, displayName(s), s.Type, s.RefreshIntervalMinutes)
				return nil
			})
		},
	}
	add.Flags().StringVar(&name, "name", "", "name (default: the feed's title)")
	add.Flags().StringVar(&typ, "type", "", "rss, web or reddit (default: detect)")
	add.Flags().IntVar(&interval, "interval", app.DefaultRefreshInterval, "refresh interval in minutes (1–10080)")

	var asJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: "List sources",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return withEnv(cmd, cfg, func(ctx context.Context, e *env) error {
				srcs, err := e.db.Sources(ctx, app.DefaultUserID)
				if err != nil {
					return err
				}
				if asJSON {
					out := make([]views.SourceJSON, 0, len(srcs))
					for _, s := range srcs {
						out = append(out, views.NewSourceJSON(s))
					}
					enc := json.NewEncoder(cmd.OutOrStdout())
					enc.SetIndent("", "  ")
					return enc.Encode(out)
				}
				tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tNAME\tTYPE\tSTATUS\tFETCH\tITEMS\tLAST FETCHED\tURL")
				for _, s := range srcs {
					last := "never"
					if s.LastFetchedAt != nil {
						last = s.LastFetchedAt.Local().Format("2006-01-02 15:04")
					}
					fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", s.ID, displayName(s), s.Type, s.Status, s.FetchStatus, s.ItemCount, last, s.URL)
					if s.LastError != "" {
						fmt.Fprintf(tw, "\t  last error: %s\t\t\t\t\t\t\n", s.LastError)
					}
				}
				return tw.Flush()
			})
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON")

	rm := &cobra.Command{
		Use:   "rm ID",
		Short: "Stop following a source and delete its items",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID(args[0])
			if err != nil {
				return err
			}
			return withEnv(cmd, cfg, func(ctx context.Context, e *env) error {
				if err := e.db.DeleteSource(ctx, app.DefaultUserID, id); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "Removed source %d.\n", id)
				return nil
			})
		},
	}

	var all bool
	refresh := &cobra.Command{
		Use:   "refresh ID|--all",
		Short: "Queue sources for fetching now",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if all == (len(args) == 1) {
				return errors.New("give a source ID or --all")
			}
			var ids []int64
			if !all {
				id, err := parseID(args[0])
				if err != nil {
					return err
				}
				ids = []int64{id}
			}
			return withEnv(cmd, cfg, func(ctx context.Context, e *env) error {
				n, err := e.sources.Refresh(ctx, app.DefaultUserID, ids...)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "Queued %d source(s) for fetching.\n", n)
				return nil
			})
		},
	}
	refresh.Flags().BoolVar(&all, "all", false, "refresh every source")
	c.AddCommand(add, list, rm, refresh)
	return c
}

func displayName(s *app.Source) string {
	if s.Name != "" {
		return s.Name
	}
	return s.URL
}

func parseID(s string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id < 1 {
		return 0, fmt.Errorf("%q is not a source ID (see `morningdeck source list`)", s)
	}
	return id, nil
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
				return nil
			})
		},
	}
}

// fetchOnce queues every due source and runs the workers until the fetch queue is drained.
func (e *env) fetchOnce(ctx context.Context) (int, error) {
	sched := &queue.Scheduler{Store: e.db, Queue: e.fetchQ, BatchSize: e.cfg.FetchQueueCapacity, Log: e.log}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- e.fetchQ.Run(runCtx) }()
	total := 0
	for {
		n, err := sched.Cycle(ctx)
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
	return total, ctx.Err()
}

func importCmd(cfg *config) *cobra.Command {
	c := &cobra.Command{Use: "import", Short: "Import sources"}
	c.AddCommand(&cobra.Command{
		Use:   "opml FILE",
		Short: "Follow every feed of an OPML file",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := os.Open(args[0])
			if err != nil {
				return err
			}
			defer f.Close()
			return withEnv(cmd, cfg, func(ctx context.Context, e *env) error {
				res, err := e.sources.ImportOPML(ctx, app.DefaultUserID, f, func(done, total int) {
					if done%50 == 0 || done == total {
						fmt.Fprintf(cmd.ErrOrStderr(), "%d of %d processed\n", done, total)
					}
				})
				if err != nil {
					return err
				}
				for _, m := range res.Errors {
					fmt.Fprintln(cmd.ErrOrStderr(), "skipped:", m)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%d added, %d skipped.\n", res.Added, res.Skipped)
				return nil
			})
		},
	})
	return c
}

func exportCmd(cfg *config) *cobra.Command {
	c := &cobra.Command{Use: "export", Short: "Export sources"}
	c.AddCommand(&cobra.Command{
		Use:   "opml",
		Short: "Write every source as OPML to standard output",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return withEnv(cmd, cfg, func(ctx context.Context, e *env) error {
				return e.sources.ExportOPML(ctx, app.DefaultUserID, cmd.OutOrStdout())
			})
		},
	})
	return c
}

func versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, args []string) {
			fmt.Fprintf(cmd.OutOrStdout(), "morningdeck %s (commit %s, built %s, %s/%s)\n", version, commit, date, runtime.GOOS, runtime.GOARCH)
		},
	}
}
