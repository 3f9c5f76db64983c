package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// Migrator copies the SQLite database into a PostgreSQL one and verifies the copy; main.go gives
// it (Options.Migrate), as it gives the wiring.
type Migrator func(ctx context.Context, cfg *Config, to string, verifyOnly bool, say func(format string, args ...any)) error

func migrateCmd(cfg *Config) *cobra.Command {
	var to string
	var verify bool
	c := &cobra.Command{
		Use:   "migrate --to postgres://…",
		Short: "Copy the SQLite database of --data-dir into an empty PostgreSQL database, resumable, and verify the copy",
		Long: `Copy everything of the SQLite database in --data-dir — accounts, settings, sources, items,
reports, briefings, learned preferences and the queued jobs — into an empty PostgreSQL database,
keeping every id, then compare every table on both sides (row counts and checksums).

Stop Morning Deck first: the copy reads the file as it is. Interrupted, it goes on from where it
stopped when run again. Then run Morning Deck with --database (or MORNINGDECK_DATABASE_URL) set
to the same address. --verify compares again without copying.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if to == "" {
				return errors.New("--to: give the PostgreSQL database to copy into, postgres://user:password@host:5432/name")
			}
			if cfg.Database != "" {
				return errors.New("migrate copies the SQLite file of --data-dir: leave --database (MORNINGDECK_DATABASE_URL) out, and give the PostgreSQL database with --to")
			}
			if !strings.HasPrefix(to, "postgres://") && !strings.HasPrefix(to, "postgresql://") {
				return fmt.Errorf("--to %s: give a PostgreSQL database as postgres://user:password@host:5432/name", RedactURL(to))
			}
			if opts.Migrate == nil {
				return errors.New("this build cannot migrate")
			}
			out := cmd.OutOrStdout()
			return opts.Migrate(cmd.Context(), cfg, to, verify, func(format string, args ...any) { fmt.Fprintf(out, format+"\n", args...) })
		},
	}
	c.Flags().StringVar(&to, "to", "", "the PostgreSQL database to copy into (postgres://…): empty, or holding a copy begun earlier")
	c.Flags().BoolVar(&verify, "verify", false, "only compare the two databases, table by table")
	return c
}
