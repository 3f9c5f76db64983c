package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/views"
)

func itemsCmd(cfg *Config) *cobra.Command {
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
			if f.Sort != "date" && f.Sort != "score" {
				return fmt.Errorf("invalid value %q for --sort: give date or score", f.Sort)
			}
			f.UserID = app.DefaultUserID
			return withServices(cmd, cfg, func(ctx context.Context, svc *app.Services) error {
				if f.Q != "" {
					if err := svc.Care.Index(ctx); err != nil {
						return err
					}
				}
				items, err := svc.Reading.Items(ctx, f)
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
				loc := userLocation(ctx, svc)
				tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tSCORE\tSTATUS\tPUBLISHED\tSOURCE\tTITLE")
				for _, it := range items {
					score, pub := "-", "-"
					if it.Score != nil {
						score = strconv.Itoa(*it.Score)
					}
					if it.PublishedAt != nil {
						pub = it.PublishedAt.In(loc).Format("2006-01-02 15:04")
					}
					fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", it.ID, score, it.Status, pub, app.Shorten(it.SourceName, 24), app.Shorten(it.Title, 70))
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
			id, err := parseID("item", args[0])
			if err != nil {
				return err
			}
			return withServices(cmd, cfg, func(ctx context.Context, svc *app.Services) error {
				it, err := svc.Reading.Item(ctx, app.DefaultUserID, id)
				if err != nil {
					return err
				}
				printItem(cmd.OutOrStdout(), it, userLocation(ctx, svc))
				return nil
			})
		},
	}
	c.AddCommand(list, show, itemsReadCmd(cfg))
	c.AddCommand(itemFeedbackCmd(cfg, app.SignalMore), itemFeedbackCmd(cfg, app.SignalLess))
	return c
}

func enrichCmd(cfg *Config) *cobra.Command {
	return &cobra.Command{
		Use:   "enrich ID",
		Short: "Run the enricher on one item and print the result (nothing is stored)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID("item", args[0])
			if err != nil {
				return err
			}
			return withServices(cmd, cfg, func(ctx context.Context, svc *app.Services) error {
				svc.Enriching.Learn(ctx, 5000)
				it, res, err := svc.Enriching.Try(ctx, app.DefaultUserID, id)
				if err != nil {
					return err
				}
				w := cmd.OutOrStdout()
				fmt.Fprintf(w, "%s\n\nSummary:  %s\nTags:     %s\nTopics:   %s\nScore:    %d — %s\nEnricher: %s\n",
					it.Title, res.Summary, strings.Join(res.Tags, ", "), strings.Join(res.Topics, ", "), res.Score, res.Reasoning, res.EnrichedBy)
				if len(res.UsualTopics) > 0 {
					fmt.Fprintf(w, "Usually:  %s (the source's usual topics; this item matched none of yours)\n", strings.Join(res.UsualTopics, ", "))
				}
				if res.PromptTokens > 0 {
					fmt.Fprintf(w, "Tokens:   %d prompt, %d completion\n", res.PromptTokens, res.CompletionTokens)
				}
				return nil
			})
		},
	}
}

// userLocation is the user's time zone (Settings), or the machine's when none is set.
func userLocation(ctx context.Context, svc *app.Services) *time.Location {
	if svc.Settings != nil {
		if st, err := svc.Settings.Get(ctx, app.DefaultUserID); err == nil && st.Timezone != "" {
			return app.Location(st.Timezone)
		}
	}
	return time.Local
}

func printItem(w io.Writer, it *app.Item, loc *time.Location) {
	fmt.Fprintf(w, "%s\n%s\n", it.Title, it.Link)
	fmt.Fprintf(w, "Source:   %s\nStatus:   %s\n", it.SourceName, it.Status)
	if it.PublishedAt != nil {
		fmt.Fprintf(w, "Published: %s\n", it.PublishedAt.In(loc).Format(time.RFC1123))
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
		fmt.Fprintf(w, "\n%s\n", app.Shorten(it.Text, 2000))
	}
}

// itemsReadCmd is "items read": mark every unread item read, or a source's or a folder's.
func itemsReadCmd(cfg *Config) *cobra.Command {
	var source int64
	var folder string
	var all bool
	c := &cobra.Command{
		Use:   "read",
		Short: "Mark unread items as read: a source's (--source), a folder's (--folder) or every one (--all)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			chosen := 0
			for _, b := range []bool{source != 0, folder != "", all} {
				if b {
					chosen++
				}
			}
			if chosen != 1 {
				return errors.New("say which items: --source ID, --folder NAME or --all (one of them)")
			}
			return withServices(cmd, cfg, func(ctx context.Context, svc *app.Services) error {
				scope, what := app.ReadScope{}, "every source"
				switch {
				case source != 0:
					src, err := svc.Sources.Get(ctx, app.DefaultUserID, source)
					if err != nil {
						return err
					}
					scope.SourceID, what = src.ID, app.FirstNonEmpty(src.Name, src.URL)
				case folder != "":
					f, err := svc.Sources.Folder(ctx, app.DefaultUserID, folder)
					if err != nil {
						return err
					}
					scope.FolderID, what = f.ID, "the folder "+f.Name
				}
				n, err := svc.Reading.MarkAllRead(ctx, app.DefaultUserID, scope)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "Marked %d %s of %s as read.\n", n, app.Plural(n, "item", "items"), what)
				return nil
			})
		},
	}
	c.Flags().Int64Var(&source, "source", 0, "the source's ID")
	c.Flags().StringVar(&folder, "folder", "", "the folder's name or ID")
	c.Flags().BoolVar(&all, "all", false, "every unread item")
	return c
}
