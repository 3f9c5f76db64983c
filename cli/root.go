package cli

import (
	"path/filepath"
	"time"

	"github.com/adrg/xdg"
	"github.com/spf13/cobra"

	"github.com/morningdeck/morningdeck/app"
)

// defaultAddr is where the web app listens unless told otherwise: loopback only.
const defaultAddr = "127.0.0.1:7777"

func newRoot() *cobra.Command {
	cfg := &Config{}
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
	pf.StringSliceVar(&cfg.TrustedProxies, "trusted-proxy", nil, "reverse proxies whose X-Forwarded-For names the client (addresses or CIDR ranges, e.g. 127.0.0.1); default none: the header is ignored")
	pf.StringSliceVar(&cfg.FetchAllow, "fetch-allow", nil, "addresses or CIDR ranges an exposed app may still fetch, e.g. 192.168.1.10,10.0.0.0/8")
	pf.StringVar(&cfg.DataDir, "data-dir", filepath.Join(xdg.DataHome, "morningdeck"), "directory of the database file")
	pf.StringVar(&cfg.Database, "database", "", "a PostgreSQL database to use instead of the SQLite file in --data-dir, as postgres://user:password@host:5432/name (also MORNINGDECK_DATABASE_URL); several instances may share it")
	pf.DurationVar(&cfg.DBBusyTimeout, "db-busy-timeout", 10*time.Second, "how long to wait for the database when another program holds its lock")
	pf.StringVar(&cfg.LogLevel, "log-level", "info", "log level: debug, info, warn, error")
	pf.StringVar(&cfg.LogFormat, "log-format", "text", "log format: text or json")
	pf.BoolVar(&cfg.LogRequests, "log-requests", false, "log every HTTP request: method, path, status, duration, user (never a password or token); on at --log-level debug")
	pf.BoolVarP(&cfg.Verbose, "verbose", "v", false, "log what the command does on stderr (serve and worker always log)")
	pf.BoolVar(&cfg.FetchEnabled, "fetch-enabled", true, "run the fetch scheduler and workers")
	pf.IntVar(&cfg.FetchWorkers, "fetch-workers", 8, "number of fetch workers (at most 4 of them parse or score at once)")
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
	pf.StringSliceVar(&cfg.LLMModels, "llm-models", nil, "models besides --llm-model that users may choose on this server's LLM when it is exposed, e.g. llama3.2,qwen2.5 (default: only --llm-model)")
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
	pf.IntVar(&cfg.MailDailyLimit, "mail-daily-limit", 200, "report emails one user's briefings may send in 24 hours when the app is exposed (0: no limit)")
	pf.IntVar(&cfg.MaxSources, "max-sources-per-user", app.DefaultMaxSources, "most sources one account may follow")
	pf.IntVar(&cfg.MaxFolders, "max-folders-per-user", app.DefaultMaxFolders, "most folders one account may have")
	pf.IntVar(&cfg.MaxBriefings, "max-briefings-per-user", app.DefaultMaxBriefings, "most briefings one account may have")
	pf.Int64Var(&cfg.MaxOPMLBytes, "max-opml-bytes", app.DefaultMaxOPMLBytes, "largest OPML file imported, in bytes")
	pf.IntVar(&cfg.RetentionDays, "retention-days", 90, "prune items older than this many days, daily, except starred ones and those in reports (0 keeps everything)")
	pf.StringVar(&cfg.BackupDir, "backup-dir", "", "write a daily backup of the database into this directory")
	pf.StringVar(&cfg.SecretKeyFile, "secret-key-file", "", "the key that seals mail passwords (default: secret.key in the data directory; instances sharing a PostgreSQL database need the same file)")
	pf.IntVar(&cfg.BackupKeep, "backup-keep", 7, "how many daily backups to keep")
	pf.StringVar(&cfg.LLMPromptFile, "llm-prompt-file", "", "a prompt template file ({{.Title}}, {{if .Interests}}…{{end}}: see DefaultPrompt in app/enrich/llm.go) replacing the LLM prompt")
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
	serveCmd.Flags().BoolVar(&cfg.NoWorkers, "no-workers", false, "serve the web app only; run 'morningdeck worker' elsewhere")

	root.AddCommand(serveCmd, sourceCmd(cfg), folderCmd(cfg), itemsCmd(cfg), enrichCmd(cfg), briefCmd(cfg), fetchCmd(cfg), importCmd(cfg), exportCmd(cfg), versionCmd(),
		queueCmd(cfg), workerCmd(cfg), configCmd(cfg), userCmd(cfg),
		backupCmd(cfg), pruneCmd(cfg), checkCmd(cfg), migrateCmd(cfg))
	root.AddCommand(tasteCmd(cfg))
	setupGlobal(root)
	return root
}
