package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/views"
)

func sourceCmd(cfg *Config) *cobra.Command {
	c := &cobra.Command{Use: "source", Short: "Add, list, remove and refresh sources"}
	var name, typ, folder string
	var interval, pick int
	add := &cobra.Command{
		Use:   "add URL",
		Short: "Follow a feed, a web page or a subreddit (r/NAME)",
		Long: "Follow a feed, a web page or a subreddit (r/NAME). A page that offers one feed is followed\n" +
			"through it; one that offers several lists them: add it again with --pick N to follow the Nth.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if pick < 0 {
				return errors.New("--pick counts from 1: give the number of a feed the page lists")
			}
			return withServices(cmd, cfg, func(ctx context.Context, svc *app.Services) error {
				in := app.AddSource{URL: args[0], Name: name, Type: app.SourceType(typ), RefreshIntervalMinutes: &interval, Folder: folder, OfferChoice: true}
				s, err := svc.Sources.Add(ctx, in)
				var choice *app.FeedChoice
				if errors.As(err, &choice) {
					if pick == 0 || pick > len(choice.Feeds) {
						writeFeedChoice(cmd.ErrOrStderr(), choice)
						if pick > len(choice.Feeds) {
							return fmt.Errorf("--pick %d: the page offers %d feeds; give a number from 1 to %d", pick, len(choice.Feeds), len(choice.Feeds))
						}
						return fmt.Errorf("this page offers %d feeds: add it again with --pick N to follow one, e.g. morningdeck source add %s --pick 1", len(choice.Feeds), args[0])
					}
					// The chosen feed, as the web form's choice adds it.
					in.URL, in.Type, in.OfferChoice = choice.Feeds[pick-1].URL, app.SourceRSS, false
					s, err = svc.Sources.Add(ctx, in)
				}
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
	add.Flags().StringVar(&folder, "folder", "", "put it in this folder (made when new)")
	add.Flags().IntVar(&pick, "pick", 0, "when the page offers several feeds, follow the Nth of those it lists")

	var asJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: "List sources",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return withServices(cmd, cfg, func(ctx context.Context, svc *app.Services) error {
				srcs, err := svc.Sources.List(ctx, app.DefaultUserID)
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
				return writeSources(cmd.OutOrStdout(), srcs)
			})
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON")

	rm := &cobra.Command{
		Use:   "rm ID",
		Short: "Stop following a source and delete its items",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID("source", args[0])
			if err != nil {
				return err
			}
			return withServices(cmd, cfg, func(ctx context.Context, svc *app.Services) error {
				if err := svc.Sources.Delete(ctx, app.DefaultUserID, id); err != nil {
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
				id, err := parseID("source", args[0])
				if err != nil {
					return err
				}
				ids = []int64{id}
			}
			return withServices(cmd, cfg, func(ctx context.Context, svc *app.Services) error {
				n, err := svc.Sources.Refresh(ctx, app.DefaultUserID, ids...)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "Queued %d source(s) for fetching.\n", n)
				return nil
			})
		},
	}
	refresh.Flags().BoolVar(&all, "all", false, "refresh every source")
	c.AddCommand(add, list, rm, refresh, sourceMoveCmd(cfg), sourceMailCmd(cfg))
	return c
}

// writeSources writes the sources as a table whose columns are as wide as their content. A
// source's last error goes on a line of its own below its row, outside the table's columns,
// so that it widens none of them.
func writeSources(w io.Writer, srcs []*app.Source) error {
	var table bytes.Buffer
	tw := tabwriter.NewWriter(&table, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tFOLDER\tTYPE\tSTATUS\tFETCH\tITEMS\tUNREAD\tLAST FETCHED\tURL")
	for _, s := range srcs {
		last := "never"
		if s.LastFetchedAt != nil {
			last = s.LastFetchedAt.Local().Format("2006-01-02 15:04")
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\t%s\n", s.ID, oneLine(displayName(s)), oneLine(s.Folder), s.Type, s.Status, s.FetchStatus, s.ItemCount, s.Unread, last, s.URL)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	rows := strings.SplitAfter(table.String(), "\n")
	indent := strings.Repeat(" ", max(len("ID"), len(strconv.FormatInt(maxID(srcs), 10)))+2) // under NAME
	var out strings.Builder
	out.WriteString(rows[0])
	for i, s := range srcs {
		out.WriteString(rows[i+1])
		if s.LastError != "" {
			fmt.Fprintf(&out, "%slast error: %s\n", indent, oneLine(s.LastError))
		}
	}
	_, err := io.WriteString(w, out.String())
	return err
}

func maxID(srcs []*app.Source) int64 {
	var m int64
	for _, s := range srcs {
		m = max(m, s.ID)
	}
	return m
}

// writeFeedChoice lists the feeds a page offers, numbered for --pick.
func writeFeedChoice(w io.Writer, c *app.FeedChoice) {
	page := c.PageURL
	if c.Title != "" {
		page = oneLine(c.Title) + " (" + c.PageURL + ")"
	}
	fmt.Fprintf(w, "%s offers %d feeds:\n", page, len(c.Feeds))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for i, f := range c.Feeds {
		title := oneLine(f.Title)
		if title == "" {
			title = fmt.Sprintf("Feed %d", i+1)
		}
		fmt.Fprintf(tw, "  %d.\t%s\t%s\n", i+1, title, f.URL)
	}
	_ = tw.Flush()
}

// oneLine keeps a cell on its line: tabs and line breaks (which would shift the columns)
// become spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func displayName(s *app.Source) string {
	if s.Name != "" {
		return s.Name
	}
	return s.URL
}

func importCmd(cfg *Config) *cobra.Command {
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
			return withServices(cmd, cfg, func(ctx context.Context, svc *app.Services) error {
				res, err := svc.Sources.ImportOPML(ctx, app.DefaultUserID, f, func(done, total int) {
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

func exportCmd(cfg *Config) *cobra.Command {
	c := &cobra.Command{Use: "export", Short: "Export sources"}
	c.AddCommand(&cobra.Command{
		Use:   "opml",
		Short: "Write every source as OPML to standard output",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return withServices(cmd, cfg, func(ctx context.Context, svc *app.Services) error {
				return svc.Sources.ExportOPML(ctx, app.DefaultUserID, cmd.OutOrStdout())
			})
		},
	})
	return c
}
