package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/morningdeck/morningdeck/app"
)

// Learning from the reader from the command line (issue 12): `items more ID`, `items less ID`,
// `taste show`, `taste reset`. Without a running worker the re-scoring is done here, at once.

func itemFeedbackCmd(cfg *Config, signal string) *cobra.Command {
	short := map[string]string{app.SignalMore: "Tell Morning Deck you want more items like this one",
		app.SignalLess: "Tell Morning Deck you want fewer items like this one"}[signal]
	return &cobra.Command{
		Use:   signal + " ID",
		Short: short,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID("item", args[0])
			if err != nil {
				return err
			}
			return withServices(cmd, cfg, func(ctx context.Context, svc *app.Services) error {
				svc.Enriching.Learn(ctx, 5000) // the features are weighed by the collection's statistics
				if err := svc.Feedback.Record(ctx, app.DefaultUserID, id, signal); err != nil {
					return err
				}
				n, err := rescoreNow(ctx, svc)
				if err != nil {
					return err
				}
				word := "more"
				if signal == app.SignalLess {
					word = "fewer"
				}
				fmt.Fprintf(cmd.OutOrStdout(), "Noted: you will see %s items like %d; %d unread items scored again.\n", word, id, n)
				return nil
			})
		},
	}
}

// rescoreNow re-scores the default user's unread items with their current model.
func rescoreNow(ctx context.Context, svc *app.Services) (int, error) {
	_, v, err := svc.Feedback.TasteFor(ctx, app.DefaultUserID)
	if err != nil {
		return 0, err
	}
	return svc.Enriching.Rescore(ctx, app.DefaultUserID, v)
}

func tasteCmd(cfg *Config) *cobra.Command {
	c := &cobra.Command{Use: "taste", Short: "See or reset what Morning Deck learned from your reading"}
	var asJSON bool
	show := &cobra.Command{
		Use:   "show",
		Short: "Show the words, sources and topics that count most for and against an item",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return withServices(cmd, cfg, func(ctx context.Context, svc *app.Services) error {
				l, err := svc.Feedback.Learned(ctx, app.DefaultUserID)
				if err != nil {
					return err
				}
				w := cmd.OutOrStdout()
				if asJSON {
					enc := json.NewEncoder(w)
					enc.SetIndent("", "  ")
					return enc.Encode(l)
				}
				if l.Signals == 0 {
					fmt.Fprintln(w, "Nothing learned yet: use `morningdeck items more ID` or `items less ID`, or the buttons on items.")
					return nil
				}
				fmt.Fprintf(w, "Learned from %d signals.\nMore of:  %s\nLess of:  %s\n", l.Signals, terms(l.Positive), terms(l.Negative))
				return nil
			})
		},
	}
	show.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	reset := &cobra.Command{
		Use:   "reset",
		Short: "Forget everything learned from your reading (interests and topics stay)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return withServices(cmd, cfg, func(ctx context.Context, svc *app.Services) error {
				if err := svc.Feedback.Reset(ctx, app.DefaultUserID); err != nil {
					return err
				}
				n, err := rescoreNow(ctx, svc)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "Forgot what was learned from your reading; %d unread items scored again.\n", n)
				return nil
			})
		},
	}
	c.AddCommand(show, reset)
	return c
}

func terms(ts []app.LearnedTerm) string {
	if len(ts) == 0 {
		return "nothing stands out yet"
	}
	var s []string
	for _, t := range ts {
		s = append(s, t.Label)
	}
	return strings.Join(s, ", ")
}
