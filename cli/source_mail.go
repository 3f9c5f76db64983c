package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/morningdeck/morningdeck/app"
)

// sourceMailCmd adds a mail folder as a source (issue 30). The password is asked without echo on
// a terminal, or read from standard input's first line: never a flag, which `ps` would show.
func sourceMailCmd(cfg *Config) *cobra.Command {
	var m app.Mailbox
	var security, name, folder string
	var interval int
	c := &cobra.Command{
		Use:   "add-mail --host HOST --user USER [--folder FOLDER]",
		Short: "Follow the newsletters of a mail folder (IMAP); the password is asked, or read from standard input",
		Long: "Follow the newsletters of a mail folder, read over IMAP: each message becomes an item.\n" +
			"The folder is checked (connect, sign in, open) before it is saved. Gmail, Fastmail, iCloud and\n" +
			"Yahoo need an app password. Nothing on the server is deleted or moved.\n\n" +
			"  echo \"$APP_PASSWORD\" | morningdeck source add-mail --host imap.fastmail.com --user me@fastmail.com --folder Newsletters",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			pw, err := mailPassword(cmd)
			if err != nil {
				return err
			}
			m.Security = app.MailSecurity(security)
			return withServices(cmd, cfg, func(ctx context.Context, svc *app.Services) error {
				s, err := svc.Sources.AddMail(ctx, app.AddMail{Name: name, Mailbox: m, Password: pw, RefreshIntervalMinutes: &interval, Folder: folder})
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "Added mail folder %d: %s (every %d min). It is queued for fetching.\n", s.ID, displayName(s), s.RefreshIntervalMinutes)
				return nil
			})
		},
	}
	f := c.Flags()
	f.StringVar(&m.Host, "host", "", "the IMAP server, like imap.fastmail.com")
	f.IntVar(&m.Port, "port", 0, "its port (default 993 for tls, 143 otherwise)")
	f.StringVar(&security, "security", "tls", "tls, starttls, or plain (only to this machine)")
	f.StringVar(&m.Username, "user", "", "the account's user name (often the address)")
	f.StringVar(&m.Folder, "folder", "INBOX", "the mail folder, as the server names it")
	f.StringVar(&m.Sender, "from", "", "only the mail of this sender's address")
	f.IntVar(&m.FirstImport, "first", app.DefaultFirstImport, "how many of the folder's latest messages the first fetch takes")
	f.BoolVar(&m.MarkRead, "mark-read", false, "mark the messages read on the server")
	f.StringVar(&name, "name", "", "name (default: the folder, or the sender)")
	f.IntVar(&interval, "interval", app.DefaultRefreshInterval, "refresh interval in minutes (1–10080)")
	f.StringVar(&folder, "in", "", "put it in this Morning Deck folder (made when new)")
	return c
}

// mailPassword asks for a mail account's password without echo on a terminal, or reads the
// first line of standard input.
func mailPassword(cmd *cobra.Command) (string, error) {
	fd := int(os.Stdin.Fd())
	if cmd.InOrStdin() != os.Stdin || !term.IsTerminal(fd) {
		line, err := bufio.NewReader(cmd.InOrStdin()).ReadString('\n')
		if err != nil && line == "" {
			return "", errors.New("no password on standard input: pipe it in, e.g. echo \"$APP_PASSWORD\" | morningdeck source add-mail …")
		}
		return strings.TrimRight(line, "\r\n"), nil
	}
	fmt.Fprint(cmd.OutOrStdout(), "Password or app password: ")
	b, err := term.ReadPassword(fd)
	fmt.Fprintln(cmd.OutOrStdout())
	return string(b), err
}
