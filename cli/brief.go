package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/render"
)

func briefCmd(cfg *Config) *cobra.Command {
	c := &cobra.Command{Use: "brief", Short: "Briefings: list, add, run, show reports"}
	var listJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: "List briefings with their next run",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return withServices(cmd, cfg, func(ctx context.Context, svc *app.Services) error {
				bs, err := svc.Briefings.List(ctx, app.DefaultUserID)
				if err != nil {
					return err
				}
				if listJSON {
					type briefingJSON struct {
						*app.Briefing
						NextRunAt    *time.Time `json:"nextRunAt"`
						LastReportID *int64     `json:"lastReportId"`
						// LatestReportID is the latest report with stories, the one to read.
						LatestReportID *int64 `json:"latestReportId"`
					}
					out := make([]briefingJSON, 0, len(bs))
					for _, b := range bs {
						if b.SourceIDs == nil {
							b.SourceIDs = []int64{}
						}
						if b.Recipients == nil {
							b.Recipients = []string{}
						}
						j := briefingJSON{Briefing: b, NextRunAt: b.NextRunAt(time.Now())}
						if reps, err := svc.Briefings.Reports(ctx, app.DefaultUserID, b.ID, 5); err == nil && len(reps) > 0 {
							j.LastReportID = &reps[0].ID
							if l := app.LatestNonEmpty(reps); l.Stories() > 0 {
								j.LatestReportID = &l.ID
							}
						}
						out = append(out, j)
					}
					return printJSON(cmd, out)
				}
				tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tNAME\tSCHEDULE\tCOVERS\tSTATUS\tNEXT RUN\tLAST REPORT")
				for _, b := range bs {
					next, last := "-", "-"
					if n := b.NextRunAt(time.Now()); n != nil {
						next = n.In(app.Location(b.Timezone)).Format("Mon 2 Jan 15:04 MST")
					}
					if reps, err := svc.Briefings.Reports(ctx, app.DefaultUserID, b.ID, 5); err == nil && len(reps) > 0 {
						loc := app.Location(b.Timezone)
						row := func(r *app.Report) string {
							if n := r.Stories(); n > 0 {
								return fmt.Sprintf("#%d %s, %d %s", r.ID, r.GeneratedAt.In(loc).Format("2006-01-02 15:04 MST"), n, app.Plural(n, "story", "stories"))
							}
							return fmt.Sprintf("#%d %s, nothing new", r.ID, r.GeneratedAt.In(loc).Format("2006-01-02 15:04 MST"))
						}
						last = row(reps[0])
						if l := app.LatestNonEmpty(reps); l != reps[0] {
							last += "; latest with stories " + row(l) // an empty run does not hide it
						}
					}
					sched := b.Frequency + " " + b.Time + " " + b.Timezone
					if b.Frequency == app.Weekly {
						sched = time.Weekday(b.DayOfWeek).String() + "s " + b.Time + " " + b.Timezone
					}
					fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", b.ID, b.Name, sched, briefingCovers(b), b.Status, next, last)
				}
				return tw.Flush()
			})
		},
	}
	list.Flags().BoolVar(&listJSON, "json", false, "print JSON")
	var b app.Briefing
	var folder string
	add := &cobra.Command{
		Use:   "add NAME",
		Short: "Create a briefing",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b.Name, b.UserID = args[0], app.DefaultUserID
			return withServices(cmd, cfg, func(ctx context.Context, svc *app.Services) error {
				if cmd.Flags().Changed("folder") {
					if err := briefingFolder(ctx, svc, &b, folder); err != nil {
						return err
					}
				}
				if err := svc.Briefings.Save(ctx, &b); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "Added briefing %d: %s (%s).\n", b.ID, b.Name, briefingCovers(&b))
				return nil
			})
		},
	}
	briefingFlags(add, &b, &folder)
	edit := briefEditCmd(cfg)
	run := &cobra.Command{
		Use:   "run ID",
		Short: "Write a report of the briefing now and print it",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID("briefing", args[0])
			if err != nil {
				return err
			}
			return withEnv(cmd, cfg, func(ctx context.Context, e *Env) error {
				svc := e.Svc
				b, err := svc.Briefings.Get(ctx, app.DefaultUserID, id)
				if err != nil {
					return err
				}
				// A run now is a preview that leaves the schedule (LastExecutedAt) as it was: wait
				// for a report newer than the latest one.
				var before int64
				if reps, err := svc.Briefings.Reports(ctx, app.DefaultUserID, id, 1); err == nil && len(reps) > 0 {
					before = reps[0].ID
				}
				ok, err := svc.Briefings.RunNow(ctx, id)
				if err != nil {
					return err
				}
				if !ok {
					return fmt.Errorf("briefing %d is already queued or running, or paused", id)
				}
				svc.Enriching.Learn(ctx, 5000)
				runCtx, cancel := context.WithCancel(ctx)
				done := make(chan struct{})
				go func() { _ = e.BriefingQ.Run(runCtx); close(done) }()
				defer func() { cancel(); <-done }()
				for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
					cur, err := svc.Briefings.Get(ctx, app.DefaultUserID, id)
					if err != nil {
						return err
					}
					if cur.Status == app.BriefingError {
						return fmt.Errorf("the briefing failed: %s", cur.LastError)
					}
					if cur.Status == app.BriefingActive {
						if reps, err := svc.Briefings.Reports(ctx, app.DefaultUserID, id, 1); err == nil && len(reps) > 0 && reps[0].ID > before {
							break
						}
					}
					if time.Now().After(deadline) {
						return errors.New("the report was not written within a minute")
					}
				}
				reps, err := svc.Briefings.Reports(ctx, app.DefaultUserID, id, 1)
				if err != nil || len(reps) == 0 {
					return fmt.Errorf("no report: %v", err)
				}
				rep, err := svc.Briefings.Report(ctx, app.DefaultUserID, reps[0].ID)
				if err != nil {
					return err
				}
				_, err = io.WriteString(cmd.OutOrStdout(), render.ReportMarkdown(b, rep, app.Location(b.Timezone)))
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
			id, err := parseID("report", args[0])
			if err != nil {
				return err
			}
			if format != "md" && format != "json" {
				return fmt.Errorf("--format %q: use md or json", format)
			}
			return withServices(cmd, cfg, func(ctx context.Context, svc *app.Services) error {
				rep, b, err := svc.Briefings.ReportWithBriefing(ctx, app.DefaultUserID, id)
				if err != nil {
					return err
				}
				if format == "json" {
					enc := json.NewEncoder(cmd.OutOrStdout())
					enc.SetIndent("", "  ")
					return enc.Encode(rep)
				}
				_, err = io.WriteString(cmd.OutOrStdout(), render.ReportMarkdown(b, rep, app.Location(b.Timezone)))
				return err
			})
		},
	}
	show.Flags().StringVar(&format, "format", "md", "md or json")
	c.AddCommand(list, add, edit, run, show)
	return c
}

// briefingFlags are the settings of a briefing that `brief add` and `brief edit` take.
func briefingFlags(c *cobra.Command, b *app.Briefing, folder *string) {
	c.Flags().StringVar(&b.Focus, "focus", "", "what this briefing is about (default: your interests)")
	c.Flags().StringVar(&b.Frequency, "frequency", app.Daily, "DAILY or WEEKLY")
	c.Flags().IntVar(&b.DayOfWeek, "day", 1, "day of the week for WEEKLY, 0 (Sunday) to 6")
	c.Flags().StringVar(&b.Time, "time", "07:00", "local time of day, HH:MM")
	c.Flags().StringVar(&b.Timezone, "timezone", "UTC", "IANA time zone, e.g. Europe/Brussels")
	c.Flags().IntVar(&b.ItemLimit, "items", 10, "most items in a report")
	c.Flags().IntVar(&b.MinScore, "min-score", 0, "leave out items scored below this")
	c.Flags().Int64SliceVar(&b.SourceIDs, "source", nil, "only these sources (repeatable; default all)")
	c.Flags().StringVar(folder, "folder", "", "only the sources of this folder (name or ID)")
}

// briefingFolder limits b to the named folder ("" or "none": no folder).
func briefingFolder(ctx context.Context, svc *app.Services, b *app.Briefing, name string) error {
	if n := strings.TrimSpace(name); n == "" || strings.EqualFold(n, "none") {
		b.FolderID, b.FolderName = nil, ""
		return nil
	}
	f, err := svc.Sources.Folder(ctx, b.UserID, name)
	if err != nil {
		return err
	}
	b.FolderID, b.FolderName = &f.ID, f.Name
	return nil
}

// briefingCovers says what a briefing covers: every source, a folder's, or chosen ones.
func briefingCovers(b *app.Briefing) string {
	switch {
	case b.FolderID != nil:
		return "the sources of folder " + b.FolderName
	case len(b.SourceIDs) > 0:
		return fmt.Sprintf("%d chosen %s", len(b.SourceIDs), app.Plural(len(b.SourceIDs), "source", "sources"))
	}
	return "every source"
}

// briefEditCmd is `brief edit ID`: the flags given change the briefing, the others keep
// their values. --folder, --source and --all-sources change what it covers.
func briefEditCmd(cfg *Config) *cobra.Command {
	var set app.Briefing
	var folder, name string
	var all bool
	c := &cobra.Command{
		Use:   "edit ID",
		Short: "Change a briefing: only the settings given change",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID("briefing", args[0])
			if err != nil {
				return err
			}
			fl := cmd.Flags()
			if n := btoi(fl.Changed("folder")) + btoi(fl.Changed("source")) + btoi(all); n > 1 {
				return errors.New("give one of --folder, --source and --all-sources: a briefing covers a folder, chosen sources or every source")
			}
			return withServices(cmd, cfg, func(ctx context.Context, svc *app.Services) error {
				b, err := svc.Briefings.Get(ctx, app.DefaultUserID, id)
				if err != nil {
					return err
				}
				if fl.Changed("name") {
					b.Name = name
				}
				if fl.Changed("focus") {
					b.Focus = set.Focus
				}
				if fl.Changed("frequency") {
					b.Frequency = set.Frequency
				}
				if fl.Changed("day") {
					b.DayOfWeek = set.DayOfWeek
				}
				if fl.Changed("time") {
					b.Time = set.Time
				}
				if fl.Changed("timezone") {
					b.Timezone = set.Timezone
				}
				if fl.Changed("items") {
					b.ItemLimit = set.ItemLimit
				}
				if fl.Changed("min-score") {
					b.MinScore = set.MinScore
				}
				switch {
				case all:
					b.FolderID, b.FolderName, b.SourceIDs = nil, "", nil
				case fl.Changed("source"):
					b.FolderID, b.FolderName, b.SourceIDs = nil, "", set.SourceIDs
				case fl.Changed("folder"):
					b.SourceIDs = nil
					if err := briefingFolder(ctx, svc, b, folder); err != nil {
						return err
					}
				}
				if err := svc.Briefings.Save(ctx, b); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "Saved briefing %d: %s (%s).\n", b.ID, b.Name, briefingCovers(b))
				return nil
			})
		},
	}
	briefingFlags(c, &set, &folder)
	c.Flags().StringVar(&name, "name", "", "a new name")
	c.Flags().BoolVar(&all, "all-sources", false, "cover every source (no folder, no chosen sources)")
	return c
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
