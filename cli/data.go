package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/spf13/cobra"
)

func versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, args []string) {
			fmt.Fprintf(cmd.OutOrStdout(), "morningdeck %s (commit %s, built %s, %s/%s)\n", opts.Version, opts.Commit, opts.Date, runtime.GOOS, runtime.GOARCH)
		},
	}
}

func backupCmd(cfg *Config) *cobra.Command {
	return &cobra.Command{
		Use:   "backup FILE",
		Short: "Write a consistent copy of the database to FILE, also while the app runs",
		Long: "Write a consistent copy of the database to FILE (a new file, mode 0600), also while the app runs.\n" +
			"To restore: stop Morning Deck, copy the backup over DATA_DIR/morningdeck.db, delete\n" +
			"morningdeck.db-wal and morningdeck.db-shm next to it, and start Morning Deck again.\n\n" +
			"On PostgreSQL (--database postgres://…) the copy is made by pg_dump (PostgreSQL's client\n" +
			"tools, of the server's major version or newer), in its custom format: restore it with\n" +
			"pg_restore --no-owner -d postgres://…/EMPTY_DATABASE FILE, with every instance stopped,\n" +
			"then start the instances with --database set to that database.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withServices(cmd, cfg, func(ctx context.Context, svc *app.Services) error {
				start := time.Now()
				if err := svc.Care.Backup(ctx, args[0]); err != nil {
					return err
				}
				st, err := os.Stat(args[0])
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "Backed up to %s (%.1f MB) in %s.\n", args[0], float64(st.Size())/1e6, time.Since(start).Round(time.Millisecond))
				if cfg.Database != "" {
					fmt.Fprintf(cmd.OutOrStdout(), "It is pg_dump's custom format: restore it into an empty database with pg_restore --no-owner -d postgres://…/NEW_DATABASE %s\n", args[0])
				}
				return nil
			})
		},
	}
}

func pruneCmd(cfg *Config) *cobra.Command {
	var vacuum bool
	c := &cobra.Command{
		Use:   "prune",
		Short: "Delete items older than --retention-days now (starred ones and those in reports stay)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cfg.RetentionDays <= 0 {
				return errors.New("--retention-days is 0: nothing is pruned")
			}
			return withServices(cmd, cfg, func(ctx context.Context, svc *app.Services) error {
				res, err := svc.Care.Prune(ctx, time.Now())
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "Pruned %d %s older than %d days (kept %d starred, in reports or in progress).\n",
					res.Items, app.Plural(res.Items, "item", "items"), cfg.RetentionDays, res.Kept)
				if vacuum {
					before, _ := os.Stat(svc.Care.Path)
					if err := svc.Care.Vacuum(ctx); err != nil {
						return err
					}
					after, _ := os.Stat(svc.Care.Path)
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

func checkCmd(cfg *Config) *cobra.Command {
	return &cobra.Command{
		Use:   "check",
		Short: "Check the database file's integrity (PRAGMA integrity_check)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return withServices(cmd, cfg, func(ctx context.Context, svc *app.Services) error {
				if err := svc.Care.Check(ctx); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s: ok\n", svc.Care.Path)
				return nil
			})
		},
	}
}
