package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/morningdeck/morningdeck/app"
)

// ensureAdmin makes sure an account exists before the app listens beyond loopback: on a
// terminal it asks for one; otherwise it says how to make one.
func ensureAdmin(cmd *cobra.Command, cfg *Config, accounts *app.Accounts) error {
	users, err := accounts.Users(cmd.Context())
	if err != nil {
		return err
	}
	for _, u := range users {
		if u.HasPassword {
			return nil
		}
	}
	if !term.IsTerminal(int(os.Stdin.Fd())) {
		return fmt.Errorf("Morning Deck listens on %s, beyond this machine, so it needs an account: create the admin with `morningdeck user add NAME`, then start it again", cfg.Addr)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "Morning Deck will listen on %s, beyond this machine, so it needs an account.\nCreate the admin account.\n", cfg.Addr)
	name, err := prompt(cmd, "User name: ")
	if err != nil {
		return err
	}
	pw, err := newPassword(cmd)
	if err != nil {
		return err
	}
	u, err := accounts.AddUser(cmd.Context(), name, pw, true)
	if err != nil {
		return cliError(err)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "Created %s. Sign in with it in the browser.\n", u.Name)
	return nil
}

func prompt(cmd *cobra.Command, q string) (string, error) {
	fmt.Fprint(cmd.OutOrStdout(), q)
	var line string
	_, err := fmt.Fscanln(cmd.InOrStdin(), &line)
	return strings.TrimSpace(line), err
}

// newPassword asks for a password twice without echo on a terminal, or reads one line from
// standard input (for scripts: `echo pw | morningdeck user add NAME`).
func newPassword(cmd *cobra.Command) (string, error) {
	fd := int(os.Stdin.Fd())
	if !term.IsTerminal(fd) {
		line, err := bufio.NewReader(cmd.InOrStdin()).ReadString('\n')
		if err != nil && line == "" {
			return "", errors.New("no password on standard input")
		}
		return strings.TrimRight(line, "\r\n"), nil
	}
	fmt.Fprintf(cmd.OutOrStdout(), "Password (at least %d characters): ", app.MinPasswordLength)
	a, err := term.ReadPassword(fd)
	fmt.Fprintln(cmd.OutOrStdout())
	if err != nil {
		return "", err
	}
	fmt.Fprint(cmd.OutOrStdout(), "Again: ")
	b, err := term.ReadPassword(fd)
	fmt.Fprintln(cmd.OutOrStdout())
	if err != nil {
		return "", err
	}
	if string(a) != string(b) {
		return "", errors.New("the two passwords differ")
	}
	return string(a), nil
}

func userCmd(cfg *Config) *cobra.Command {
	c := &cobra.Command{Use: "user", Short: "Accounts, for when Morning Deck listens beyond this machine"}
	var admin bool
	add := &cobra.Command{
		Use:   "add NAME",
		Short: "Create an account (the first one is the admin and owns the data made so far); the password is asked, or read from standard input",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withServices(cmd, cfg, func(ctx context.Context, svc *app.Services) error {
				pw, err := newPassword(cmd)
				if err != nil {
					return err
				}
				u, err := svc.Accounts.AddUser(ctx, args[0], pw, admin)
				if err != nil {
					return cliError(err)
				}
				role := "user"
				if u.Admin {
					role = "admin"
				}
				fmt.Fprintf(cmd.OutOrStdout(), "Created %s %s (id %d).\n", role, u.Name, u.ID)
				return nil
			})
		},
	}
	add.Flags().BoolVar(&admin, "admin", false, "make the account an admin (sees the queues)")
	var listJSON bool
	list := &cobra.Command{
		Use: "list", Short: "List accounts", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return withServices(cmd, cfg, func(ctx context.Context, svc *app.Services) error {
				users, err := svc.Accounts.Users(ctx)
				if err != nil {
					return err
				}
				if listJSON {
					type userJSON struct {
						*app.User
						HasPassword bool `json:"hasPassword"`
					}
					out := make([]userJSON, 0, len(users))
					for _, u := range users {
						out = append(out, userJSON{User: u, HasPassword: u.HasPassword})
					}
					return printJSON(cmd, out)
				}
				tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tNAME\tROLE\tPASSWORD\tCREATED")
				for _, u := range users {
					role, pw := "user", "set"
					if u.Admin {
						role = "admin"
					}
					if !u.HasPassword {
						pw = "none (local mode)"
					}
					fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", u.ID, u.Name, role, pw, u.CreatedAt.Local().Format("2006-01-02"))
				}
				return tw.Flush()
			})
		},
	}
	list.Flags().BoolVar(&listJSON, "json", false, "print JSON")
	passwd := &cobra.Command{
		Use: "passwd NAME", Short: "Set an account's password (signs it out everywhere)", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withServices(cmd, cfg, func(ctx context.Context, svc *app.Services) error {
				u, err := svc.Accounts.User(ctx, args[0])
				if err != nil {
					return cliError(err)
				}
				pw, err := newPassword(cmd)
				if err != nil {
					return err
				}
				if err := svc.Accounts.SetPassword(ctx, u.ID, pw); err != nil {
					return cliError(err)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "Password of %s changed.\n", u.Name)
				return nil
			})
		},
	}
	token := &cobra.Command{
		Use: "token NAME LABEL", Short: "Create an API token for an account and print it (it is not shown again)", Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withServices(cmd, cfg, func(ctx context.Context, svc *app.Services) error {
				u, err := svc.Accounts.User(ctx, args[0])
				if err != nil {
					return cliError(err)
				}
				_, secret, err := svc.Accounts.NewAPIToken(ctx, u.ID, args[1])
				if err != nil {
					return cliError(err)
				}
				fmt.Fprintln(cmd.OutOrStdout(), secret)
				return nil
			})
		},
	}
	rm := &cobra.Command{
		Use: "rm NAME", Short: "Delete an account and everything it owns", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withServices(cmd, cfg, func(ctx context.Context, svc *app.Services) error {
				u, err := svc.Accounts.User(ctx, args[0])
				if err != nil {
					return cliError(err)
				}
				if err := svc.Accounts.DeleteUser(ctx, u.ID); err != nil {
					return cliError(err)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "Deleted %s.\n", u.Name)
				return nil
			})
		},
	}
	c.AddCommand(add, list, passwd, token, rm)
	return c
}
