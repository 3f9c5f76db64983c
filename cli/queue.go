package cli

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/views"
)

func queueCmd(cfg *Config) *cobra.Command {
	c := &cobra.Command{Use: "queue", Short: "See and steer the background queues (fetch, process, briefing, email)"}
	var asJSON bool
	stats := &cobra.Command{
		Use:   "stats",
		Short: "Show each queue's ready, delayed, running, failed and recently done jobs",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return withServices(cmd, cfg, func(ctx context.Context, svc *app.Services) error {
				qs, err := svc.Queues.Queues(ctx)
				if err != nil {
					return err
				}
				if asJSON {
					// GET /admin/queue-stats's fields, and the table's columns under the
					// table's names (state: running or paused).
					type queueJSON struct {
						views.QueueStatsJSON
						State             string `json:"state"`
						Ready             int    `json:"ready"`
						Delayed           int    `json:"delayed"`
						InFlight          int    `json:"inFlight"`
						DoneLastHour      int    `json:"doneLastHour"`
						OldestWaitSeconds int    `json:"oldestWaitSeconds"`
					}
					stats := views.QueueStats(qs)
					out := map[string]queueJSON{}
					for _, q := range qs {
						out[q.Name] = queueJSON{QueueStatsJSON: stats[q.Name], State: queueState(q), Ready: q.Ready, Delayed: q.Delayed,
							InFlight: q.InFlight, DoneLastHour: q.DoneLastHour, OldestWaitSeconds: int(q.OldestReady.Seconds())}
					}
					return printJSON(cmd, out)
				}
				tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "QUEUE\tSTATE\tREADY\tDELAYED\tIN FLIGHT\tFAILED\tDONE 1H\tOLDEST WAIT\tCAPACITY")
				for _, q := range qs {
					state, oldest, capacity := queueState(q), "-", "-"
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
				stuck, err := svc.Queues.Stuck(ctx)
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
	stats.Flags().BoolVar(&asJSON, "json", false, "print JSON (GET /admin/queue-stats's fields, with the table's columns and state names)")
	var failedJSON bool
	failed := &cobra.Command{
		Use:   "failed [QUEUE]",
		Short: "List failed jobs with their error (all queues when none is named)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withServices(cmd, cfg, func(ctx context.Context, svc *app.Services) error {
				jobs, err := svc.Queues.Failed(ctx, strings.Join(args, ""), 0)
				if err != nil {
					return err
				}
				if failedJSON {
					type jobJSON struct {
						Queue    string    `json:"queue"`
						ID       string    `json:"id"`
						Kind     string    `json:"kind"`
						Subject  string    `json:"subject"`
						Attempts int       `json:"attempts"`
						FailedAt time.Time `json:"failedAt"`
						Error    string    `json:"error"`
					}
					out := make([]jobJSON, 0, len(jobs))
					for _, j := range jobs {
						out = append(out, jobJSON{j.Queue, j.ID, j.Kind, j.Subject, j.Attempts, j.FailedAt, j.Error})
					}
					return printJSON(cmd, out)
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
	failed.Flags().BoolVar(&failedJSON, "json", false, "print JSON")
	var all bool
	retry := &cobra.Command{
		Use:   "retry QUEUE [ID...] | QUEUE --all",
		Short: "Send failed jobs back to their queue",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if all == (len(args) > 1) {
				return errors.New("name the failed job ids (see `morningdeck queue failed QUEUE`) or pass --all")
			}
			return withServices(cmd, cfg, func(ctx context.Context, svc *app.Services) error {
				if all {
					n, err := svc.Queues.RetryAll(ctx, args[0])
					if err != nil {
						return err
					}
					fmt.Fprintf(cmd.OutOrStdout(), "%d failed %s sent back to the %s queue.\n", n, app.Plural(n, "job", "jobs"), args[0])
					return nil
				}
				for _, id := range args[1:] {
					if err := svc.Queues.Retry(ctx, args[0], id); err != nil {
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
			return withServices(cmd, cfg, func(ctx context.Context, svc *app.Services) error {
				for _, id := range args[1:] {
					if err := svc.Queues.Discard(ctx, args[0], id); err != nil {
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
				return withServices(cmd, cfg, func(ctx context.Context, svc *app.Services) error {
					if err := svc.Queues.SetPaused(ctx, args[0], paused); err != nil {
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

// queueState is a queue's state as the table and --json name it: running or paused.
func queueState(q app.QueueInfo) string {
	if q.Paused {
		return "paused"
	}
	return "running"
}
