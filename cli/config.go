package cli

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/adrg/xdg"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/mail"
)

// Config is every knob, set by flag, else MORNINGDECK_* environment variable, else default.
type Config struct {
	// Short: the command only reads or changes a few things through the services (withServices)
	// and does not pay the database's integrity check at start, which reads the whole file
	// (0.33 s for 42 MB here: seconds on a Raspberry Pi's larger file, for every command). The
	// server, the workers, fetch and brief run are checked; so is `morningdeck check`.
	Short      bool
	ConfigFile string            // the file read, "" when none
	Sources    map[string]string // flag name → where its value came from: flag, env, file (absent: default)

	DataDir string
	// Database is a PostgreSQL database's address (postgres://…) to use instead of the SQLite
	// file in DataDir: --database, or MORNINGDECK_DATABASE (or MORNINGDECK_DATABASE_URL).
	Database      string
	DBBusyTimeout time.Duration
	LogLevel      string
	LogFormat     string
	Verbose       bool // -v: log at LogLevel even for ordinary commands
	LogRequests   bool // log every HTTP request the web app answers (also on at --log-level debug)
	Quiet         bool // an ordinary command without -v: warnings and errors only

	Addr      string
	NoBrowser bool
	NoWorkers bool

	RequireLogin bool     // exposed even on loopback (behind a reverse proxy on the same machine)
	FetchAllow   []string // private addresses an exposed app may fetch
	// TrustedProxies are the reverse proxies whose X-Forwarded-For is believed (addresses or
	// CIDR ranges); none by default.
	TrustedProxies []string

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
	LLMModels            []string // further models users may name on the operator's LLM when exposed
	LLMAPIKey            string
	LLMTimeout           time.Duration
	LLMConcurrency       int
	LLMFallback          bool
	LLMPromptFile        string
	BriefingEnabled      bool
	BriefingInterval     time.Duration
	BaseURL              string
	SMTP                 mail.Options
	MailDailyLimit       int // report emails one user's briefings send in 24 hours at most, when exposed

	// Per-account limits (--max-sources-per-user, --max-folders-per-user,
	// --max-briefings-per-user, --max-opml-bytes).
	MaxSources, MaxFolders, MaxBriefings int
	MaxOPMLBytes                         int64

	RetentionDays int    // items older than this are pruned daily (0: never)
	BackupDir     string // a daily backup goes here ("" : none)
	// SecretKeyFile is the key that seals mail passwords (app.SecretBox); "": secret.key in
	// DataDir. Instances sharing a PostgreSQL database must share this file.
	SecretKeyFile string
	BackupKeep    int // daily backups kept
}

// configure sets every flag the command line did not set: from MORNINGDECK_<FLAG> (dashes as
// underscores), else from the configuration file, else its default stays.
func configure(cmd *cobra.Command, cfg *Config) error {
	cfg.Sources = map[string]string{}
	var errs []error
	flags := map[string]*pflag.Flag{}
	visit := func(f *pflag.Flag) {
		if flags[f.Name] == f {
			return // a persistent flag is both the command's and inherited: one visit, one error
		}
		flags[f.Name] = f
		if f.Changed {
			cfg.Sources[f.Name] = "flag"
			return
		}
		name := envName(f.Name)
		if v, ok := os.LookupEnv(name); ok {
			if err := f.Value.Set(v); err != nil {
				errs = append(errs, valueError(name, f, v))
			}
			cfg.Sources[f.Name] = "env"
		}
	}
	cmd.Flags().VisitAll(visit)
	cmd.InheritedFlags().VisitAll(visit)
	// MORNINGDECK_DATABASE_URL is --database too (the name hosting platforms give it).
	if f := flags["database"]; f != nil && cfg.Sources["database"] == "" {
		if v, ok := os.LookupEnv("MORNINGDECK_DATABASE_URL"); ok && v != "" {
			if err := f.Value.Set(v); err != nil {
				errs = append(errs, valueError("MORNINGDECK_DATABASE_URL", f, v))
			}
			cfg.Sources["database"] = "env"
		}
	}
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
	// Ordinary commands print their result, not a log: warnings and errors only, unless -v.
	cfg.Quiet = !cfg.Verbose && !logsByDefault(cmd)
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
			errs = append(errs, valueError(fmt.Sprintf("%s (%s:%d)", kv.name, path, kv.line), f, kv.value))
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

func configCmd(cfg *Config) *cobra.Command {
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
			fmt.Fprintf(w, "# configuration file: %s\n# database: %s\n", file, cfg.DatabaseName())
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
				if n == "database" {
					v = RedactURL(v)
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

// DatabaseName names the database for people: the SQLite file's path, or the PostgreSQL
// database's address without its password.
func (c *Config) DatabaseName() string {
	if c.Database != "" {
		return RedactURL(c.Database)
	}
	return filepath.Join(c.DataDir, "morningdeck.db")
}

// RedactURL is a database address with its password masked, as xxxxx ("" for "").
func RedactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" {
		if s == "" {
			return ""
		}
		return "********" // not a URL: a key=value connection string may hold a password anywhere
	}
	q := u.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.Redacted() // the password as xxxxx
}

// LogsRequests reports whether the web app logs every request: --log-requests, or
// --log-level debug.
func (c *Config) LogsRequests() bool {
	return c.LogRequests || strings.EqualFold(strings.TrimSpace(c.LogLevel), "debug")
}

func newLogger(cfg *Config, w io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(cfg.LogLevel)); err != nil {
		return nil, fmt.Errorf("--log-level %q: use debug, info, warn or error", cfg.LogLevel)
	}
	if cfg.Quiet && level < slog.LevelWarn {
		level = slog.LevelWarn
	} else if cfg.Verbose && level > slog.LevelInfo {
		level = slog.LevelInfo
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

// Exposed: the app is reachable beyond this machine (or says so), so it requires sign-in and
// does not fetch private addresses.
func (c *Config) Exposed() bool { return c.RequireLogin || !loopback(c.Addr) }

// Prefixes parses a list flag of addresses (192.168.1.10, ::1) and CIDR ranges (10.0.0.0/8).
func Prefixes(flag string, values []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, v := range values {
		v = strings.TrimSpace(v)
		if v == "" {
			continue
		}
		p, err := netip.ParsePrefix(v)
		if err != nil {
			a, aerr := netip.ParseAddr(v)
			if aerr != nil {
				return nil, fmt.Errorf("--%s %q: give an address (192.168.1.10) or a CIDR range (10.0.0.0/8)", flag, v)
			}
			p = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// Limits are the per-account limits, each at least 1.
func (c *Config) Limits() (app.Limits, error) {
	for _, l := range []struct {
		flag string
		v    int64
	}{{"max-sources-per-user", int64(c.MaxSources)}, {"max-folders-per-user", int64(c.MaxFolders)},
		{"max-briefings-per-user", int64(c.MaxBriefings)}, {"max-opml-bytes", c.MaxOPMLBytes}} {
		if l.v < 1 {
			return app.Limits{}, fmt.Errorf("--%s %d: a limit is at least 1", l.flag, l.v)
		}
	}
	return app.Limits{Sources: c.MaxSources, Folders: c.MaxFolders, Briefings: c.MaxBriefings, OPMLBytes: c.MaxOPMLBytes}, nil
}

// SecretKeyPath is the key file that seals mail passwords: --secret-key-file, or secret.key in
// the data directory.
func (c *Config) SecretKeyPath() string {
	if c.SecretKeyFile != "" {
		return c.SecretKeyFile
	}
	return filepath.Join(c.DataDir, "secret.key")
}
