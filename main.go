// Command morningdeck is a self-hosted news briefing app: it follows feeds, web pages and
// subreddits and serves a calm, ranked reading list on localhost.
//
// This file holds the cobra commands and the wiring only.
package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"text/template"
	"time"

	"github.com/adrg/xdg"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/enrich"
	"github.com/morningdeck/morningdeck/app/feeds"
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

// config is every knob, set by flag, else MORNINGDECK_* environment variable, else default.
type config struct {
	ConfigFile string            // the file read, "" when none
	Sources    map[string]string // flag name → where its value came from: flag, env, file (absent: default)

	DataDir       string
	DBBusyTimeout time.Duration
	LogLevel      string
	LogFormat     string

	Addr      string
	NoBrowser bool
	NoWorkers bool

	RequireLogin bool     // exposed even on loopback (behind a reverse proxy on the same machine)
	FetchAllow   []string // private addresses an exposed app may fetch

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

	ProcessEnabled       bool
	ProcessWorkers       int
	ProcessQueueCapacity int
	ProcessInterval      time.Duration
	ProcessBatchSize     int
	ProcessJobTimeout    time.Duration
	Enricher             string
	LLMBaseURL           string
	LLMModel             string
	LLMAPIKey            string
	LLMTimeout           time.Duration
	LLMConcurrency       int
	LLMFallback          bool
	LLMPromptFile        string
	BriefingEnabled      bool
	BriefingInterval     time.Duration
	BaseURL              string
	SMTP                 mail.Options

	RetentionDays int    // items older than this are pruned daily (0: never)
	BackupDir     string // a daily backup goes here ("" : none)
	BackupKeep    int    // daily backups kept
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
			return configure(cmd, cfg)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return serve(cmd, cfg)
		},
	}
	pf := root.PersistentFlags()
	pf.StringVar(&cfg.ConfigFile, "config", "", "configuration file (default "+defaultConfigFile()+")")
	pf.BoolVar(&cfg.RequireLogin, "require-login", false, "treat the app as exposed even on loopback (behind a reverse proxy): sign-in required, private addresses not fetched; always on beyond loopback")
	pf.StringSliceVar(&cfg.FetchAllow, "fetch-allow", nil, "addresses or CIDR ranges an exposed app may still fetch, e.g. 192.168.1.10,10.0.0.0/8")
	pf.StringVar(&cfg.DataDir, "data-dir", filepath.Join(xdg.DataHome, "morningdeck"), "directory of the database file")
	pf.DurationVar(&cfg.DBBusyTimeout, "db-busy-timeout", 10*time.Second, "how long to wait for the database when another program holds its lock")
	pf.StringVar(&cfg.LogLevel, "log-level", "info", "log level: debug, info, warn, error")
	pf.StringVar(&cfg.LogFormat, "log-format", "text", "log format: text or json")
	pf.BoolVar(&cfg.FetchEnabled, "fetch-enabled", true, "run the fetch scheduler and workers")
	pf.IntVar(&cfg.FetchWorkers, "fetch-workers", 4, "number of fetch workers")
	pf.IntVar(&cfg.FetchQueueCapacity, "fetch-queue-capacity", 1000, "most fetch jobs waiting before the scheduler holds back")
	pf.DurationVar(&cfg.FetchInterval, "fetch-scheduler-interval", time.Minute, "how often the fetch scheduler looks for due sources")
	pf.IntVar(&cfg.FetchBatchSize, "fetch-batch-size", 100, "sources the scheduler enqueues per transaction (a cycle queues every due source the fetch queue has room for)")
	pf.DurationVar(&cfg.StuckThreshold, "stuck-threshold", 10*time.Minute, "a source QUEUED or FETCHING longer than this is reset")
	pf.DurationVar(&cfg.RecoveryInterval, "recovery-interval", 5*time.Minute, "how often stuck sources are looked for")
	pf.DurationVar(&cfg.FetchJobTimeout, "fetch-job-timeout", time.Minute, "a fetch job of a dead process becomes visible again after this")
	pf.DurationVar(&cfg.HTTPTimeout, "http-timeout", 30*time.Second, "total time limit of one HTTP request")
	pf.Int64Var(&cfg.FetchMaxBody, "max-body-bytes", 10<<20, "largest response body accepted")
	pf.DurationVar(&cfg.ShutdownGracePeriod, "shutdown-grace", 30*time.Second, "how long running jobs may finish at shutdown")
	pf.BoolVar(&cfg.ProcessEnabled, "process-enabled", true, "run the processing (enrichment) scheduler and workers")
	pf.IntVar(&cfg.ProcessWorkers, "process-workers", 4, "number of processing workers")
	pf.IntVar(&cfg.ProcessQueueCapacity, "process-queue-capacity", 5000, "most processing jobs waiting before the scheduler holds back")
	pf.DurationVar(&cfg.ProcessInterval, "process-scheduler-interval", time.Minute, "how often items still NEW are looked for")
	pf.IntVar(&cfg.ProcessBatchSize, "process-batch-size", 50, "most NEW items the processing scheduler enqueues per cycle")
	pf.DurationVar(&cfg.ProcessJobTimeout, "process-job-timeout", 5*time.Minute, "a processing, briefing or email job of a dead process is retried after this")
	pf.StringVar(&cfg.Enricher, "enricher", app.EnricherEmbedded, "default enricher: embedded (offline) or llm")
	pf.StringVar(&cfg.LLMBaseURL, "llm-base-url", "http://127.0.0.1:11434/v1", "OpenAI-compatible API base URL (Ollama's by default)")
	pf.StringVar(&cfg.LLMModel, "llm-model", "", "model name for the LLM enricher, e.g. llama3.2")
	pf.StringVar(&cfg.LLMAPIKey, "llm-api-key", "", "API key for the LLM (not needed for Ollama)")
	pf.DurationVar(&cfg.LLMTimeout, "llm-timeout", time.Minute, "time limit of one LLM request")
	pf.IntVar(&cfg.LLMConcurrency, "llm-concurrency", 2, "most LLM requests at once")
	pf.BoolVar(&cfg.LLMFallback, "llm-fallback", true, "use the embedded enricher after the LLM's last failed attempt")
	pf.BoolVar(&cfg.BriefingEnabled, "briefing-enabled", true, "run the briefing scheduler and workers")
	pf.DurationVar(&cfg.BriefingInterval, "briefing-scheduler-interval", time.Minute, "how often due briefings are looked for")
	pf.StringVar(&cfg.BaseURL, "base-url", "", "the app's address as readers reach it, for links in emails (default http://ADDR)")
	pf.StringVar(&cfg.SMTP.Host, "smtp-host", "", "SMTP server for report emails")
	pf.IntVar(&cfg.SMTP.Port, "smtp-port", 0, "SMTP port (default 587; 25 with --smtp-tls none; 465 with tls)")
	pf.StringVar(&cfg.SMTP.Username, "smtp-username", "", "SMTP user")
	pf.StringVar(&cfg.SMTP.Password, "smtp-password", "", "SMTP password (never shown or logged)")
	pf.StringVar(&cfg.SMTP.From, "smtp-from", "", "the From address of report emails")
	pf.StringVar(&cfg.SMTP.TLS, "smtp-tls", "starttls", "none, starttls or tls")
	pf.IntVar(&cfg.RetentionDays, "retention-days", 90, "prune items older than this many days, daily, except starred ones and those in reports (0 keeps everything)")
	pf.StringVar(&cfg.BackupDir, "backup-dir", "", "write a daily backup of the database into this directory")
	pf.IntVar(&cfg.BackupKeep, "backup-keep", 7, "how many daily backups to keep")
	pf.StringVar(&cfg.LLMPromptFile, "llm-prompt-file", "", "a text/template file replacing the LLM prompt (see DefaultPrompt in app/enrich/llm.go)")
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

	root.AddCommand(serveCmd, sourceCmd(cfg), itemsCmd(cfg), enrichCmd(cfg), briefCmd(cfg), fetchCmd(cfg), importCmd(cfg), exportCmd(cfg), versionCmd(),
		queueCmd(cfg), workerCmd(cfg), configCmd(cfg), userCmd(cfg),
		backupCmd(cfg), pruneCmd(cfg), checkCmd(cfg))
	return root
}

// configure sets every flag the command line did not set: from MORNINGDECK_<FLAG> (dashes as
// underscores), else from the configuration file, else its default stays.
func configure(cmd *cobra.Command, cfg *config) error {
	cfg.Sources = map[string]string{}
	var errs []error
	flags := map[string]*pflag.Flag{}
	visit := func(f *pflag.Flag) {
		flags[f.Name] = f
		if f.Changed {
			cfg.Sources[f.Name] = "flag"
			return
		}
		name := envName(f.Name)
		if v, ok := os.LookupEnv(name); ok {
			if err := f.Value.Set(v); err != nil {
				errs = append(errs, fmt.Errorf("%s=%q: %w", name, v, err))
			}
			cfg.Sources[f.Name] = "env"
		}
	}
	cmd.Flags().VisitAll(visit)
	cmd.InheritedFlags().VisitAll(visit)
	// The root's own flags (addr, no-browser) too, for `config show`, unless this command
	// has flags of those names bound to the same settings.
	cmd.Root().LocalFlags().VisitAll(func(f *pflag.Flag) {
		if flags[f.Name] == nil {
			visit(f)
		}
	})
	if err := errors.Join(errs...); err != nil {
		return err
	}
	path, explicit := cfg.ConfigFile, cfg.ConfigFile != ""
	if !explicit {
		path = defaultConfigFile()
	}
	settings, err := readConfigFile(path)
	if errors.Is(err, os.ErrNotExist) && !explicit {
		cfg.ConfigFile = ""
		return nil
	}
	if err != nil {
		return fmt.Errorf("configuration file: %w", err)
	}
	cfg.ConfigFile = path
	for _, kv := range settings {
		f := flags[kv.name]
		if f == nil {
			if lookupAnyFlag(cmd.Root(), kv.name) {
				continue // a setting of another command, e.g. addr for serve
			}
			errs = append(errs, fmt.Errorf("%s:%d: unknown setting %q (settings are the command-line flag names, see --help)", path, kv.line, kv.name))
			continue
		}
		if cfg.Sources[kv.name] != "" {
			continue // a flag or the environment wins
		}
		if kv.name == "config" {
			errs = append(errs, fmt.Errorf("%s:%d: a configuration file cannot name another one", path, kv.line))
			continue
		}
		if err := f.Value.Set(kv.value); err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: %s = %q: %w", path, kv.line, kv.name, kv.value, err))
			continue
		}
		cfg.Sources[kv.name] = "file"
	}
	return errors.Join(errs...)
}

// lookupAnyFlag reports whether any command under root has the flag.
func lookupAnyFlag(root *cobra.Command, name string) bool {
	if root.Flags().Lookup(name) != nil || root.PersistentFlags().Lookup(name) != nil {
		return true
	}
	for _, c := range root.Commands() {
		if lookupAnyFlag(c, name) {
			return true
		}
	}
	return false
}

func envName(flag string) string {
	return "MORNINGDECK_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// defaultConfigFile is $XDG_CONFIG_HOME/morningdeck/morningdeck.conf. (MORNINGDECK_CONFIG
// sets --config, like every flag's variable.)
func defaultConfigFile() string {
	return filepath.Join(xdg.ConfigHome, "morningdeck", "morningdeck.conf")
}

type setting struct {
	name, value string
	line        int
}

// readConfigFile reads "name = value" lines (names are flag names; # comments; blank lines;
// values may be in double quotes).
func readConfigFile(path string) ([]setting, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []setting
	var errs []error
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(strings.TrimPrefix(line, "\ufeff"))
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";") {
			continue
		}
		name, value, ok := strings.Cut(line, "=")
		if !ok {
			errs = append(errs, fmt.Errorf("%s:%d: %q is not a setting: write name = value", path, i+1, line))
			continue
		}
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if uq, err := strconv.Unquote(value); err == nil && strings.HasPrefix(value, `"`) {
			value = uq
		}
		out = append(out, setting{name: strings.TrimPrefix(name, "--"), value: value, line: i + 1})
	}
	return out, errors.Join(errs...)
}

// secretFlags are never printed.
var secretFlags = map[string]bool{"smtp-password": true, "llm-api-key": true}

func configCmd(cfg *config) *cobra.Command {
	c := &cobra.Command{Use: "config", Short: "Show the configuration"}
	show := &cobra.Command{
		Use:   "show",
		Short: "Print the effective configuration (flags > MORNINGDECK_* environment > config file > defaults), secrets masked",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			w := cmd.OutOrStdout()
			file := cfg.ConfigFile
			if file == "" {
				file = "none (" + defaultConfigFile() + " does not exist)"
			}
			fmt.Fprintf(w, "# configuration file: %s\n# database: %s\n", file, filepath.Join(cfg.DataDir, "morningdeck.db"))
			tw := tabwriter.NewWriter(w, 0, 4, 1, ' ', 0)
			var names []string
			all := map[string]*pflag.Flag{}
			for _, fs := range []*pflag.FlagSet{cmd.InheritedFlags(), cmd.Root().LocalFlags()} {
				fs.VisitAll(func(f *pflag.Flag) {
					if f.Name == "help" || f.Name == "config" || all[f.Name] != nil {
						return
					}
					all[f.Name] = f
					names = append(names, f.Name)
				})
			}
			sort.Strings(names)
			for _, n := range names {
				f := all[n]
				v := f.Value.String()
				if secretFlags[n] && v != "" {
					v = "********"
				}
				from := cmp.Or(cfg.Sources[n], "default")
				fmt.Fprintf(tw, "%s\t= %s\t# %s\n", n, v, from)
			}
			return tw.Flush()
		},
	}
	c.AddCommand(show)
	return c
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

	sources    *app.Sources
	reading    *app.Reading
	enriching  *app.Enriching
	briefings  *app.Briefings
	deliveries *app.Deliveries
	accounts   *app.Accounts
	embedded   *enrich.Embedded
	chooser    *enrich.Chooser

	careMu   sync.Mutex
	lastCare time.Time // the last retention prune and automatic backup
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
	}
	path := filepath.Join(cfg.DataDir, "morningdeck.db")
	db, err := sqlite.Open(ctx, sqlite.Options{Path: path, Log: log, BusyTimeout: cfg.DBBusyTimeout})
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	fetcher := feeds.Adapter{Fetcher: feeds.New(fo)}
	q := queue.Options{DB: db.Write, Read: db.Read, Timeout: cfg.ProcessJobTimeout, ShutdownGrace: cfg.ShutdownGracePeriod, Log: log}
	e := &env{cfg: cfg, log: log, db: db,
		fetchQ: queue.NewFetchQueue(queue.FetchQueueOptions{DB: db.Write, Read: db.Read, Capacity: cfg.FetchQueueCapacity,
			Workers: cfg.FetchWorkers, Timeout: cfg.FetchJobTimeout, ShutdownGrace: cfg.ShutdownGracePeriod, Log: log}),
		processQ: queue.NewProcessQueue(queue.ProcessQueueOptions{DB: db.Write, Read: db.Read, Capacity: cfg.ProcessQueueCapacity,
			Workers: cfg.ProcessWorkers, Timeout: cfg.ProcessJobTimeout, ShutdownGrace: cfg.ShutdownGracePeriod, Log: log}),
		briefingQ: queue.NewBriefingQueue(q),
		embedded:  enrich.NewEmbedded(enrich.EmbeddedOptions{}),
		accounts:  &app.Accounts{Store: db},
	}
	q.BaseBackoff = 30 * time.Second
	e.emailQ = queue.NewEmailQueue(q)
	e.chooser = &enrich.Chooser{Default: cfg.Enricher, Embedded: e.embedded, Settings: db, Log: log,
		LLM: enrich.LLMOptions{BaseURL: cfg.LLMBaseURL, Model: cfg.LLMModel, APIKey: cfg.LLMAPIKey, Timeout: cfg.LLMTimeout,
			MaxConcurrent: cfg.LLMConcurrency, PromptTemplate: prompt, Log: log}}
	e.enriching = &app.Enriching{Store: db, Queue: e.processQ, Enrichers: e.chooser, Articles: fetcher, Observer: e.embedded.Stats(), Log: log}
	if cfg.LLMFallback {
		e.enriching.Fallback = e.embedded
	}
	e.sources = &app.Sources{Store: db, Queue: e.fetchQ, Detector: feeds.Detector{Fetcher: fetcher.Fetcher}, Log: log,
		Fetches: db, Fetcher: fetcher, NewItems: e.enriching.Pend}
	e.reading = &app.Reading{Items: db, Filters: db, Settings: db, Queue: e.processQ}
	e.deliveries = &app.Deliveries{Store: db, Queue: e.emailQ, Log: log,
		Mailer: &mail.Mailer{Default: cfg.SMTP, Settings: db, BaseURL: cmp.Or(cfg.BaseURL, "http://"+cfg.Addr)}}
	e.briefings = &app.Briefings{Store: db, Queue: e.briefingQ, Ranker: enrich.Ranker{Embedded: e.embedded}, Writer: e.chooser,
		Emails: e.deliveries.QueueTx, Log: log}
	queue.HandleFetch(e.fetchQ, e.sources)
	queue.HandleProcess(e.processQ, e.enriching)
	queue.HandleBriefings(e.briefingQ, e.briefings)
	queue.HandleEmail(e.emailQ, e.deliveries)
	e.admin = &queue.Admin{List: []*queue.Queue{e.fetchQ.Queue, e.processQ.Queue, e.briefingQ.Queue, e.emailQ.Queue},
		Capacities: map[string]int{"fetch": cfg.FetchQueueCapacity, "process": cfg.ProcessQueueCapacity},
		Store:      db, StuckThreshold: cfg.StuckThreshold}
	metrics.WatchQueues(e.admin.Sizes)
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
			&queue.Scheduler{Name: "fetch scheduler", Cycle: func(ctx context.Context) (int, error) { return e.sources.QueueDue(ctx, cfg.FetchBatchSize) }},
			recovery("source", e.sources.ResetStuck))
	}
	if cfg.ProcessEnabled {
		e.seedStats(ctx)
		run(e.processQ.Queue, cfg.ProcessInterval,
			&queue.Scheduler{Name: "process scheduler", Cycle: func(ctx context.Context) (int, error) { return e.enriching.QueueNew(ctx, cfg.ProcessBatchSize) }},
			recovery("item", e.enriching.ResetStuck))
	}
	if cfg.BriefingEnabled {
		run(e.briefingQ.Queue, cfg.BriefingInterval,
			&queue.Scheduler{Name: "briefing scheduler", Cycle: e.briefings.QueueDue},
			recovery("briefing", e.briefings.ResetStuck))
		run(e.emailQ.Queue, 0)
	}
	wg.Go(func() { e.indexLoop(ctx) })
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
			e.dataCare(ctx, time.Now())
		})
	})
	return &wg
}

// dataCare runs, at most once a day, the retention prune and the automatic backup.
// Several processes may run it: the prune is idempotent and the backup skips a day it has.
func (e *env) dataCare(ctx context.Context, now time.Time) {
	e.careMu.Lock()
	defer e.careMu.Unlock()
	if now.Sub(e.lastCare) < 23*time.Hour {
		return
	}
	e.lastCare = now
	if days := e.cfg.RetentionDays; days > 0 {
		res, err := e.db.Prune(ctx, now.Add(-time.Duration(days)*24*time.Hour))
		if err != nil {
			e.log.Warn("retention prune failed", "error", err)
		} else if res.Items > 0 || res.Tombstones > 0 {
			e.log.Info("old items pruned", "items", res.Items, "kept", res.Kept, "older_than_days", days, "free_bytes", res.FreeBytes, "longest_batch", res.LongestBatch)
		}
	}
	if e.cfg.BackupDir != "" {
		path, err := e.db.BackupRotate(ctx, e.cfg.BackupDir, e.cfg.BackupKeep, now)
		if err != nil {
			e.log.Warn("automatic backup failed", "dir", e.cfg.BackupDir, "error", err)
		} else if path != "" {
			e.log.Info("backup written", "path", path, "keep", e.cfg.BackupKeep)
		}
	}
}

// seedStats teaches the embedded enricher the collection's vocabulary from recent items.
func (e *env) seedStats(ctx context.Context) {
	texts, err := e.db.RecentTexts(ctx, 5000)
	if err != nil {
		e.log.Warn("could not read recent items for the enricher's statistics", "error", err)
		return
	}
	for _, t := range texts {
		e.embedded.Stats().Observe(t)
	}
}

// indexLoop adds new items to the search index every couple of seconds.
func (e *env) indexLoop(ctx context.Context) {
	queue.Every(ctx, 2*time.Second, func() {
		for ctx.Err() == nil {
			n, err := e.db.IndexItems(ctx, 5000)
			if err != nil {
				if ctx.Err() == nil {
					e.log.Warn("search indexing failed", "error", err)
				}
				return
			}
			if n < 5000 {
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
		if err := ensureAdmin(cmd, e); err != nil {
			return err
		}
	}
	// Only the default address moves to the next free port; one that was chosen (flag,
	// environment, configuration file) fails clearly, so a reverse proxy never loses the app.
	ln, err := listen(cfg.Addr, !cmd.Flags().Changed("addr") && cfg.Sources["addr"] == "")
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
		ExportOPML:      e.sources.ExportOPML,
		Reading:         e.reading,
		Enricher:        views.EnricherInfo{Default: cfg.Enricher, LLMConfigured: e.chooser.Configured(), LLMModel: cfg.LLMModel, LLMBaseURL: cfg.LLMBaseURL},
		TestLLM:         e.chooser.TestLLM,
		Briefings:       e.db,
		Deliveries:      e.deliveries.List,
		PreviewBriefing: e.briefings.Preview,
		ResendDelivery:  e.deliveries.Resend,
		SendTestEmail:   e.deliveries.SendTest,
		RunBriefing:     e.briefings.RunNow,
		Queues:          e.admin,
		Accounts:        e.accounts,
		RequireLogin:    requireLogin,
		DataCare:        views.DataCareInfo{RetentionDays: cfg.RetentionDays, BackupDir: cfg.BackupDir, BackupKeep: cfg.BackupKeep, DBPath: e.db.Path},
		Metrics:         promhttp.HandlerFor(metrics.Registry, promhttp.HandlerOpts{ErrorLog: slog.NewLogLogger(e.log.Handler(), slog.LevelWarn)}),
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
	began := time.Now()
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- e.fetchQ.Run(runCtx) }()
	total := 0
	for {
		n, err := e.sources.QueueDue(ctx, e.cfg.FetchQueueCapacity)
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
	if err := e.db.Read.QueryRowContext(ctx, `select count(*) from sources where last_fetched_at >= ?`, sqlite.FormatTime(began)).Scan(&total); err != nil {
		return total, err
	}
	for {
		n, err := e.db.IndexItems(ctx, 5000)
		if err != nil {
			return total, err
		}
		if n < 5000 {
			break
		}
	}
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

func itemsCmd(cfg *config) *cobra.Command {
	c := &cobra.Command{Use: "items", Short: "List, search and show items"}
	var f app.ItemFilter
	var asJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: "List items, newest first (or search them with --q)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.MinScore < 0 || f.MinScore > 100 {
				return errors.New("--min-score must be between 0 and 100")
			}
			f.UserID = app.DefaultUserID
			return withEnv(cmd, cfg, func(ctx context.Context, e *env) error {
				if f.Q != "" {
					if _, err := e.db.IndexItems(ctx, 100000); err != nil {
						return err
					}
				}
				items, err := e.db.Items(ctx, f)
				if err != nil {
					return err
				}
				if asJSON {
					out := make([]views.ItemJSON, 0, len(items))
					for _, it := range items {
						out = append(out, views.NewItemJSON(it, f.Q != ""))
					}
					enc := json.NewEncoder(cmd.OutOrStdout())
					enc.SetIndent("", "  ")
					return enc.Encode(out)
				}
				tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tSCORE\tSTATUS\tPUBLISHED\tSOURCE\tTITLE")
				for _, it := range items {
					score, pub := "-", "-"
					if it.Score != nil {
						score = strconv.Itoa(*it.Score)
					}
					if it.PublishedAt != nil {
						pub = it.PublishedAt.Local().Format("2006-01-02 15:04")
					}
					fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", it.ID, score, it.Status, pub, shorten(it.SourceName, 24), shorten(it.Title, 70))
				}
				return tw.Flush()
			})
		},
	}
	list.Flags().StringVar(&f.Q, "q", "", "full-text search")
	list.Flags().IntVar(&f.MinScore, "min-score", 0, "only items scored at least this (0–100)")
	list.Flags().Int64Var(&f.SourceID, "source", 0, "only items of this source")
	list.Flags().BoolVar(&f.Unread, "unread", false, "only unread items")
	list.Flags().BoolVar(&f.Starred, "starred", false, "only starred items")
	list.Flags().StringVar(&f.Sort, "sort", "date", "date or score")
	list.Flags().IntVar(&f.Limit, "limit", 50, "how many (at most 500)")
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON")

	show := &cobra.Command{
		Use:   "show ID",
		Short: "Show an item with its summary, tags, topics and score",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID(args[0])
			if err != nil {
				return err
			}
			return withEnv(cmd, cfg, func(ctx context.Context, e *env) error {
				it, err := e.db.Item(ctx, app.DefaultUserID, id)
				if err != nil {
					return err
				}
				printItem(cmd.OutOrStdout(), it)
				return nil
			})
		},
	}
	c.AddCommand(list, show)
	return c
}

func enrichCmd(cfg *config) *cobra.Command {
	return &cobra.Command{
		Use:   "enrich ID",
		Short: "Run the enricher on one item and print the result (nothing is stored)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID(args[0])
			if err != nil {
				return err
			}
			return withEnv(cmd, cfg, func(ctx context.Context, e *env) error {
				it, err := e.db.Item(ctx, app.DefaultUserID, id)
				if err != nil {
					return err
				}
				s, err := e.db.Settings(ctx, app.DefaultUserID)
				if err != nil {
					return err
				}
				e.seedStats(ctx)
				enricher := e.chooser.EnricherFor(s)
				res, err := enricher.Enrich(ctx, app.EnrichInput{Title: it.Title, Text: it.Text, Link: it.Link, Author: it.Author,
					SourceName: it.SourceName, PublishedAt: it.PublishedAt, Interests: s.Interests, Topics: s.Topics})
				if err != nil {
					return fmt.Errorf("%s: %w", enricher.Name(), err)
				}
				w := cmd.OutOrStdout()
				fmt.Fprintf(w, "%s\n\nSummary:  %s\nTags:     %s\nTopics:   %s\nScore:    %d — %s\nEnricher: %s\n",
					it.Title, res.Summary, strings.Join(res.Tags, ", "), strings.Join(res.Topics, ", "), res.Score, res.Reasoning, res.EnrichedBy)
				if res.PromptTokens > 0 {
					fmt.Fprintf(w, "Tokens:   %d prompt, %d completion\n", res.PromptTokens, res.CompletionTokens)
				}
				return nil
			})
		},
	}
}

func printItem(w io.Writer, it *app.Item) {
	fmt.Fprintf(w, "%s\n%s\n", it.Title, it.Link)
	fmt.Fprintf(w, "Source:   %s\nStatus:   %s\n", it.SourceName, it.Status)
	if it.PublishedAt != nil {
		fmt.Fprintf(w, "Published: %s\n", it.PublishedAt.Local().Format(time.RFC1123))
	}
	if it.Score != nil {
		fmt.Fprintf(w, "Score:    %d — %s\n", *it.Score, it.ScoreReasoning)
	}
	if len(it.Tags) > 0 {
		fmt.Fprintf(w, "Tags:     %s\n", strings.Join(it.Tags, ", "))
	}
	if len(it.Topics) > 0 {
		fmt.Fprintf(w, "Topics:   %s\n", strings.Join(it.Topics, ", "))
	}
	if it.LastError != "" {
		fmt.Fprintf(w, "Error:    %s (after %d attempts)\n", it.LastError, it.Attempts)
	}
	if it.Summary != "" {
		fmt.Fprintf(w, "\n%s\n", it.Summary)
	}
	if it.Text != "" {
		fmt.Fprintf(w, "\n%s\n", shorten(it.Text, 2000))
	}
}

func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func briefCmd(cfg *config) *cobra.Command {
	c := &cobra.Command{Use: "brief", Short: "Briefings: list, add, run, show reports"}
	list := &cobra.Command{
		Use:   "list",
		Short: "List briefings with their next run",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return withEnv(cmd, cfg, func(ctx context.Context, e *env) error {
				bs, err := e.db.Briefings(ctx, app.DefaultUserID)
				if err != nil {
					return err
				}
				tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tNAME\tSCHEDULE\tSTATUS\tNEXT RUN\tLAST REPORT")
				for _, b := range bs {
					next, last := "-", "-"
					if n := b.NextRunAt(time.Now()); n != nil {
						next = n.In(location(b.Timezone)).Format("Mon 2 Jan 15:04 MST")
					}
					if reps, err := e.db.Reports(ctx, app.DefaultUserID, b.ID, 1); err == nil && len(reps) > 0 {
						last = fmt.Sprintf("#%d %s", reps[0].ID, reps[0].GeneratedAt.Local().Format("2006-01-02 15:04"))
					}
					sched := b.Frequency + " " + b.Time + " " + b.Timezone
					if b.Frequency == app.Weekly {
						sched = time.Weekday(b.DayOfWeek).String() + "s " + b.Time + " " + b.Timezone
					}
					fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", b.ID, b.Name, sched, b.Status, next, last)
				}
				return tw.Flush()
			})
		},
	}
	var b app.Briefing
	add := &cobra.Command{
		Use:   "add NAME",
		Short: "Create a briefing",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b.Name, b.UserID = args[0], app.DefaultUserID
			return withEnv(cmd, cfg, func(ctx context.Context, e *env) error {
				if err := e.db.SaveBriefing(ctx, &b); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "Added briefing %d: %s.\n", b.ID, b.Name)
				return nil
			})
		},
	}
	add.Flags().StringVar(&b.Focus, "focus", "", "what this briefing is about (default: your interests)")
	add.Flags().StringVar(&b.Frequency, "frequency", app.Daily, "DAILY or WEEKLY")
	add.Flags().IntVar(&b.DayOfWeek, "day", 1, "day of the week for WEEKLY, 0 (Sunday) to 6")
	add.Flags().StringVar(&b.Time, "time", "07:00", "local time of day, HH:MM")
	add.Flags().StringVar(&b.Timezone, "timezone", "UTC", "IANA time zone, e.g. Europe/Brussels")
	add.Flags().IntVar(&b.ItemLimit, "items", 10, "most items in a report")
	add.Flags().IntVar(&b.MinScore, "min-score", 0, "leave out items scored below this")
	add.Flags().Int64SliceVar(&b.SourceIDs, "source", nil, "only these sources (repeatable; default all)")
	run := &cobra.Command{
		Use:   "run ID",
		Short: "Write a report of the briefing now and print it",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID(args[0])
			if err != nil {
				return err
			}
			return withEnv(cmd, cfg, func(ctx context.Context, e *env) error {
				b, err := e.db.Briefing(ctx, app.DefaultUserID, id)
				if err != nil {
					return err
				}
				ok, err := e.briefings.RunNow(ctx, id)
				if err != nil {
					return err
				}
				if !ok {
					return fmt.Errorf("briefing %d is already queued or running, or paused", id)
				}
				e.seedStats(ctx)
				runCtx, cancel := context.WithCancel(ctx)
				done := make(chan struct{})
				go func() { _ = e.briefingQ.Run(runCtx); close(done) }()
				defer func() { cancel(); <-done }()
				for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
					cur, err := e.db.Briefing(ctx, app.DefaultUserID, id)
					if err != nil {
						return err
					}
					if cur.Status == app.BriefingError {
						return fmt.Errorf("the briefing failed: %s", cur.LastError)
					}
					if cur.Status == app.BriefingActive && (cur.LastExecutedAt != nil && (b.LastExecutedAt == nil || cur.LastExecutedAt.After(*b.LastExecutedAt))) {
						break
					}
					if time.Now().After(deadline) {
						return errors.New("the report was not written within a minute")
					}
				}
				reps, err := e.db.Reports(ctx, app.DefaultUserID, id, 1)
				if err != nil || len(reps) == 0 {
					return fmt.Errorf("no report: %v", err)
				}
				rep, err := e.db.Report(ctx, app.DefaultUserID, reps[0].ID)
				if err != nil {
					return err
				}
				_, err = io.WriteString(cmd.OutOrStdout(), app.ReportMarkdown(b, rep, location(b.Timezone)))
				return err
			})
		},
	}
	var format string
	show := &cobra.Command{
		Use:   "show REPORT_ID",
		Short: "Print a report as Markdown or JSON",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID(args[0])
			if err != nil {
				return err
			}
			if format != "md" && format != "json" {
				return fmt.Errorf("--format %q: use md or json", format)
			}
			return withEnv(cmd, cfg, func(ctx context.Context, e *env) error {
				rep, err := e.db.Report(ctx, app.DefaultUserID, id)
				if err != nil {
					return err
				}
				if format == "json" {
					enc := json.NewEncoder(cmd.OutOrStdout())
					enc.SetIndent("", "  ")
					return enc.Encode(rep)
				}
				b, err := e.db.Briefing(ctx, app.DefaultUserID, rep.BriefingID)
				if err != nil {
					return err
				}
				_, err = io.WriteString(cmd.OutOrStdout(), app.ReportMarkdown(b, rep, location(b.Timezone)))
				return err
			})
		},
	}
	show.Flags().StringVar(&format, "format", "md", "md or json")
	c.AddCommand(list, add, run, show)
	return c
}

func location(zone string) *time.Location {
	loc, err := time.LoadLocation(zone)
	if err != nil {
		return time.UTC
	}
	return loc
}

func queueCmd(cfg *config) *cobra.Command {
	c := &cobra.Command{Use: "queue", Short: "See and steer the background queues (fetch, process, briefing, email)"}
	var asJSON bool
	stats := &cobra.Command{
		Use:   "stats",
		Short: "Show each queue's ready, delayed, running, failed and recently done jobs",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return withEnv(cmd, cfg, func(ctx context.Context, e *env) error {
				qs, err := e.admin.Queues(ctx)
				if err != nil {
					return err
				}
				if asJSON {
					enc := json.NewEncoder(cmd.OutOrStdout())
					enc.SetIndent("", "  ")
					return enc.Encode(views.QueueStats(qs))
				}
				tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "QUEUE\tSTATE\tREADY\tDELAYED\tIN FLIGHT\tFAILED\tDONE 1H\tOLDEST WAIT\tCAPACITY")
				for _, q := range qs {
					state, oldest, capacity := "running", "-", "-"
					if q.Paused {
						state = "PAUSED"
					}
					if q.Ready > 0 {
						oldest = q.OldestReady.Round(time.Second).String()
					}
					if q.Capacity > 0 {
						capacity = strconv.Itoa(q.Capacity)
					}
					fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\n", q.Name, state, q.Ready, q.Delayed, q.InFlight, q.Dead, q.DoneLastHour, oldest, capacity)
				}
				if err := tw.Flush(); err != nil {
					return err
				}
				stuck, err := e.admin.Stuck(ctx)
				if err != nil {
					return err
				}
				for _, s := range stuck {
					fmt.Fprintf(cmd.OutOrStdout(), "stuck: %s %d %q %s since %s\n", s.Kind, s.ID, s.Name, s.State, s.Since.Local().Format("2006-01-02 15:04"))
				}
				return nil
			})
		},
	}
	stats.Flags().BoolVar(&asJSON, "json", false, "print JSON (the shape of GET /admin/queue-stats)")
	failed := &cobra.Command{
		Use:   "failed [QUEUE]",
		Short: "List failed jobs with their error (all queues when none is named)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withEnv(cmd, cfg, func(ctx context.Context, e *env) error {
				jobs, err := e.admin.Failed(ctx, strings.Join(args, ""), 0)
				if err != nil {
					return err
				}
				if len(jobs) == 0 {
					fmt.Fprintln(cmd.OutOrStdout(), "No failed jobs.")
					return nil
				}
				tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "QUEUE\tID\tJOB\tATTEMPTS\tFAILED AT\tERROR")
				for _, j := range jobs {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", j.Queue, j.ID, strings.TrimSpace(j.Kind+" "+j.Subject), j.Attempts,
						j.FailedAt.Local().Format("2006-01-02 15:04"), oneLineText(j.Error, 200))
				}
				return tw.Flush()
			})
		},
	}
	var all bool
	retry := &cobra.Command{
		Use:   "retry QUEUE [ID...] | QUEUE --all",
		Short: "Send failed jobs back to their queue",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if all == (len(args) > 1) {
				return errors.New("name the failed job ids (see `morningdeck queue failed QUEUE`) or pass --all")
			}
			return withEnv(cmd, cfg, func(ctx context.Context, e *env) error {
				if all {
					n, err := e.admin.RetryAll(ctx, args[0])
					if err != nil {
						return err
					}
					fmt.Fprintf(cmd.OutOrStdout(), "%d failed %s sent back to the %s queue.\n", n, plural(n, "job", "jobs"), args[0])
					return nil
				}
				for _, id := range args[1:] {
					if err := e.admin.Retry(ctx, args[0], id); err != nil {
						return cliError(err)
					}
					fmt.Fprintf(cmd.OutOrStdout(), "%s sent back to the %s queue.\n", id, args[0])
				}
				return nil
			})
		},
	}
	retry.Flags().BoolVar(&all, "all", false, "retry every failed job of the queue")
	discard := &cobra.Command{
		Use:   "discard QUEUE ID...",
		Short: "Delete failed jobs",
		Args:  cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withEnv(cmd, cfg, func(ctx context.Context, e *env) error {
				for _, id := range args[1:] {
					if err := e.admin.Discard(ctx, args[0], id); err != nil {
						return cliError(err)
					}
					fmt.Fprintf(cmd.OutOrStdout(), "%s discarded.\n", id)
				}
				return nil
			})
		},
	}
	pause := func(paused bool) *cobra.Command {
		use, short, done := "pause QUEUE", "Pause a queue for every process on this database: it keeps accepting work and runs none", "paused"
		if !paused {
			use, short, done = "resume QUEUE", "Resume a paused queue", "resumed"
		}
		return &cobra.Command{
			Use: use, Short: short, Args: cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				return withEnv(cmd, cfg, func(ctx context.Context, e *env) error {
					if err := e.admin.SetPaused(ctx, args[0], paused); err != nil {
						return cliError(err)
					}
					fmt.Fprintf(cmd.OutOrStdout(), "Queue %s %s.\n", args[0], done)
					return nil
				})
			},
		}
	}
	c.AddCommand(stats, failed, retry, discard, pause(true), pause(false))
	return c
}

// cliError shows a domain error's message for a person.
func cliError(err error) error {
	if app.ErrorCode(err) != app.EINTERNAL {
		return errors.New(app.ErrorMessage(err))
	}
	return err
}

func oneLineText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = strings.ToValidUTF8(s[:n], "") + "…"
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
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
			stopWork()
			wg.Wait()
			e.log.Info("stopped")
			return nil
		},
	}
}

// loopback reports whether addr listens on this machine only.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ensureAdmin makes sure an account exists before the app listens beyond loopback: on a
// terminal it asks for one; otherwise it says how to make one.
func ensureAdmin(cmd *cobra.Command, e *env) error {
	users, err := e.db.Users(cmd.Context())
	if err != nil {
		return err
	}
	for _, u := range users {
		if u.HasPassword {
			return nil
		}
	}
	if !term.IsTerminal(int(os.Stdin.Fd())) {
		return fmt.Errorf("Morning Deck listens on %s, beyond this machine, so it needs an account: create the admin with `morningdeck user add NAME`, then start it again", e.cfg.Addr)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "Morning Deck will listen on %s, beyond this machine, so it needs an account.\nCreate the admin account.\n", e.cfg.Addr)
	name, err := prompt(cmd, "User name: ")
	if err != nil {
		return err
	}
	pw, err := newPassword(cmd)
	if err != nil {
		return err
	}
	u, err := e.accounts.AddUser(cmd.Context(), name, pw, true)
	if err != nil {
		return cliError(err)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "Created %s. Sign in with it in the browser.\n", u.Name)
	return nil
}

func prompt(cmd *cobra.Command, q string) (string, error) {
	fmt.Fprint(cmd.OutOrStdout(), q)
	var line string
	_, err := fmt.Fscanln(cmd.InOrStdin(), &line)
	return strings.TrimSpace(line), err
}

// newPassword asks for a password twice without echo on a terminal, or reads one line from
// standard input (for scripts: `echo pw | morningdeck user add NAME`).
func newPassword(cmd *cobra.Command) (string, error) {
	fd := int(os.Stdin.Fd())
	if !term.IsTerminal(fd) {
		line, err := bufio.NewReader(cmd.InOrStdin()).ReadString('\n')
		if err != nil && line == "" {
			return "", errors.New("no password on standard input")
		}
		return strings.TrimRight(line, "\r\n"), nil
	}
	fmt.Fprintf(cmd.OutOrStdout(), "Password (at least %d characters): ", app.MinPasswordLength)
	a, err := term.ReadPassword(fd)
	fmt.Fprintln(cmd.OutOrStdout())
	if err != nil {
		return "", err
	}
	fmt.Fprint(cmd.OutOrStdout(), "Again: ")
	b, err := term.ReadPassword(fd)
	fmt.Fprintln(cmd.OutOrStdout())
	if err != nil {
		return "", err
	}
	if string(a) != string(b) {
		return "", errors.New("the two passwords differ")
	}
	return string(a), nil
}

func userCmd(cfg *config) *cobra.Command {
	c := &cobra.Command{Use: "user", Short: "Accounts, for when Morning Deck listens beyond this machine"}
	var admin bool
	add := &cobra.Command{
		Use:   "add NAME",
		Short: "Create an account (the first one is the admin and owns the data made so far); the password is asked, or read from standard input",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withEnv(cmd, cfg, func(ctx context.Context, e *env) error {
				pw, err := newPassword(cmd)
				if err != nil {
					return err
				}
				u, err := e.accounts.AddUser(ctx, args[0], pw, admin)
				if err != nil {
					return cliError(err)
				}
				role := "user"
				if u.Admin {
					role = "admin"
				}
				fmt.Fprintf(cmd.OutOrStdout(), "Created %s %s (id %d).\n", role, u.Name, u.ID)
				return nil
			})
		},
	}
	add.Flags().BoolVar(&admin, "admin", false, "make the account an admin (sees the queues)")
	list := &cobra.Command{
		Use: "list", Short: "List accounts", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return withEnv(cmd, cfg, func(ctx context.Context, e *env) error {
				users, err := e.db.Users(ctx)
				if err != nil {
					return err
				}
				tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tNAME\tROLE\tPASSWORD\tCREATED")
				for _, u := range users {
					role, pw := "user", "set"
					if u.Admin {
						role = "admin"
					}
					if !u.HasPassword {
						pw = "none (local mode)"
					}
					fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", u.ID, u.Name, role, pw, u.CreatedAt.Local().Format("2006-01-02"))
				}
				return tw.Flush()
			})
		},
	}
	passwd := &cobra.Command{
		Use: "passwd NAME", Short: "Set an account's password (signs it out everywhere)", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withEnv(cmd, cfg, func(ctx context.Context, e *env) error {
				u, _, err := e.db.UserByName(ctx, args[0])
				if err != nil {
					return cliError(err)
				}
				pw, err := newPassword(cmd)
				if err != nil {
					return err
				}
				if err := e.accounts.SetPassword(ctx, u.ID, pw); err != nil {
					return cliError(err)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "Password of %s changed.\n", u.Name)
				return nil
			})
		},
	}
	token := &cobra.Command{
		Use: "token NAME LABEL", Short: "Create an API token for an account and print it (it is not shown again)", Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withEnv(cmd, cfg, func(ctx context.Context, e *env) error {
				u, _, err := e.db.UserByName(ctx, args[0])
				if err != nil {
					return cliError(err)
				}
				_, secret, err := e.accounts.NewAPIToken(ctx, u.ID, args[1])
				if err != nil {
					return cliError(err)
				}
				fmt.Fprintln(cmd.OutOrStdout(), secret)
				return nil
			})
		},
	}
	rm := &cobra.Command{
		Use: "rm NAME", Short: "Delete an account and everything it owns", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withEnv(cmd, cfg, func(ctx context.Context, e *env) error {
				u, _, err := e.db.UserByName(ctx, args[0])
				if err != nil {
					return cliError(err)
				}
				if err := e.db.DeleteUser(ctx, u.ID); err != nil {
					return cliError(err)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "Deleted %s.\n", u.Name)
				return nil
			})
		},
	}
	c.AddCommand(add, list, passwd, token, rm)
	return c
}

// exposed: the app is reachable beyond this machine (or says so), so it requires sign-in and
// does not fetch private addresses.
func (c *config) exposed() bool { return c.RequireLogin || !loopback(c.Addr) }

func backupCmd(cfg *config) *cobra.Command {
	return &cobra.Command{
		Use:   "backup FILE",
		Short: "Write a consistent copy of the database to FILE, also while the app runs",
		Long: "Write a consistent copy of the database to FILE (a new file, mode 0600), also while the app runs.\n" +
			"To restore: stop Morning Deck, copy the backup over DATA_DIR/morningdeck.db, delete\n" +
			"morningdeck.db-wal and morningdeck.db-shm next to it, and start Morning Deck again.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withEnv(cmd, cfg, func(ctx context.Context, e *env) error {
				start := time.Now()
				if err := e.db.Backup(ctx, args[0]); err != nil {
					return err
				}
				st, err := os.Stat(args[0])
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "Backed up to %s (%.1f MB) in %s.\n", args[0], float64(st.Size())/1e6, time.Since(start).Round(time.Millisecond))
				return nil
			})
		},
	}
}

func pruneCmd(cfg *config) *cobra.Command {
	var vacuum bool
	c := &cobra.Command{
		Use:   "prune",
		Short: "Delete items older than --retention-days now (starred ones and those in reports stay)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cfg.RetentionDays <= 0 {
				return errors.New("--retention-days is 0: nothing is pruned")
			}
			return withEnv(cmd, cfg, func(ctx context.Context, e *env) error {
				res, err := e.db.Prune(ctx, time.Now().Add(-time.Duration(cfg.RetentionDays)*24*time.Hour))
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "Pruned %d %s older than %d days (kept %d starred, in reports or in progress).\n",
					res.Items, plural(res.Items, "item", "items"), cfg.RetentionDays, res.Kept)
				if vacuum {
					before, _ := os.Stat(e.db.Path)
					if err := e.db.Vacuum(ctx); err != nil {
						return err
					}
					after, _ := os.Stat(e.db.Path)
					if before != nil && after != nil {
						fmt.Fprintf(cmd.OutOrStdout(), "Compacted the file from %.1f MB to %.1f MB.\n", float64(before.Size())/1e6, float64(after.Size())/1e6)
					}
				} else if res.FreeBytes > 0 {
					fmt.Fprintf(cmd.OutOrStdout(), "%.1f MB in the file are free for new data (--vacuum gives them back to the disk).\n", float64(res.FreeBytes)/1e6)
				}
				return nil
			})
		},
	}
	c.Flags().BoolVar(&vacuum, "vacuum", false, "then compact the file (the workers wait meanwhile)")
	return c
}

func checkCmd(cfg *config) *cobra.Command {
	return &cobra.Command{
		Use:   "check",
		Short: "Check the database file's integrity (PRAGMA integrity_check)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return withEnv(cmd, cfg, func(ctx context.Context, e *env) error {
				var res string
				if err := e.db.Read.QueryRowContext(ctx, `pragma integrity_check`).Scan(&res); err != nil {
					return err
				}
				if res != "ok" {
					return fmt.Errorf("the database file %s is damaged: %s (restore a backup)", e.db.Path, res)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s: ok\n", e.db.Path)
				return nil
			})
		},
	}
}
