package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/views"
)

// sourceMoveCmd is `source move ID FOLDER`: "" takes the source out of its folder.
func sourceMoveCmd(cfg *Config) *cobra.Command {
	return &cobra.Command{
		Use:   "move ID FOLDER",
		Short: `Put a source in a folder (made when new); "" takes it out of its folder`,
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID("source", args[0])
			if err != nil {
				return err
			}
			return withServices(cmd, cfg, func(ctx context.Context, svc *app.Services) error {
				s, err := svc.Sources.Move(ctx, app.DefaultUserID, id, args[1])
				if err != nil {
					return err
				}
				if s.Folder == "" {
					fmt.Fprintf(cmd.OutOrStdout(), "Source %d (%s) is in no folder now.\n", s.ID, displayName(s))
				} else {
					fmt.Fprintf(cmd.OutOrStdout(), "Moved source %d (%s) to %s.\n", s.ID, displayName(s), s.Folder)
				}
				return nil
			})
		},
	}
}

func folderCmd(cfg *Config) *cobra.Command {
	c := &cobra.Command{Use: "folder", Short: "List, rename and remove folders of sources"}
	var asJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: "List folders with their sources and unread items",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return withServices(cmd, cfg, func(ctx context.Context, svc *app.Services) error {
				fs, err := svc.Sources.Folders(ctx, app.DefaultUserID, 0)
				if err != nil {
					return err
				}
				if asJSON {
					out := make([]views.FolderJSON, 0, len(fs))
					for _, f := range fs {
						out = append(out, views.NewFolderJSON(f))
					}
					enc := json.NewEncoder(cmd.OutOrStdout())
					enc.SetIndent("", "  ")
					return enc.Encode(out)
				}
				if len(fs) == 0 {
					fmt.Fprintln(cmd.OutOrStdout(), "No folders yet: `source move ID FOLDER` or `source add --folder` makes one.")
					return nil
				}
				tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tNAME\tSOURCES\tUNREAD")
				for _, f := range fs {
					fmt.Fprintf(tw, "%d\t%s\t%d\t%d\n", f.ID, f.Name, f.Sources, f.Unread)
				}
				return tw.Flush()
			})
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	rename := &cobra.Command{
		Use:   "rename FOLDER NEW-NAME",
		Short: "Rename a folder (given by name or ID)",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withServices(cmd, cfg, func(ctx context.Context, svc *app.Services) error {
				f, err := svc.Sources.Folder(ctx, app.DefaultUserID, args[0])
				if err != nil {
					return err
				}
				g, err := svc.Sources.RenameFolder(ctx, app.DefaultUserID, f.ID, args[1])
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "Renamed folder %s to %s.\n", f.Name, g.Name)
				return nil
			})
		},
	}
	rm := &cobra.Command{
		Use:   "rm FOLDER",
		Short: "Remove a folder (given by name or ID); its sources stay, in no folder",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withServices(cmd, cfg, func(ctx context.Context, svc *app.Services) error {
				f, err := svc.Sources.Folder(ctx, app.DefaultUserID, args[0])
				if err != nil {
					return err
				}
				if err := svc.Sources.DeleteFolder(ctx, app.DefaultUserID, f.ID); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "Removed folder %s; its %d source(s) are in no folder now.\n", f.Name, f.Sources)
				return nil
			})
		},
	}
	c.AddCommand(list, rename, rm)
	return c
}
