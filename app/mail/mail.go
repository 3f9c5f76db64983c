// Package mail composes report emails and sends them over SMTP (go-mail).
package mail

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"time"

	gomail "github.com/wneessen/go-mail"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/feeds"
	"github.com/morningdeck/morningdeck/app/render"
)

// Options configure SMTP.
type Options struct {
	Host     string
	Port     int    // default 587 (25 for TLS "none", 465 for "tls")
	Username string // with Password: SMTP AUTH
	Password string // never logged
	From     string
	TLS      string // none, starttls (default), tls
	Timeout  time.Duration
	BaseURL  string // the app's address, for links back to the report and the briefing
	// Dial, when set, makes every connection (the SSRF guard for a server a user chose while
	// the app is exposed). Errors then say only what failed, not what the server answered.
	Dial func(ctx context.Context, network, address string) (net.Conn, error)
}

// Configured reports whether there is an SMTP host and a From address.
func (o Options) Configured() bool { return o.Host != "" && o.From != "" }

// Sender sends messages with SMTP.
type Sender struct{ opts Options }

// New returns a sender.
func New(o Options) *Sender {
	if o.TLS == "" {
		o.TLS = "starttls"
	}
	if o.Timeout == 0 {
		o.Timeout = 30 * time.Second
	}
	if o.Port == 0 {
		o.Port = map[string]int{"none": 25, "tls": 465}[o.TLS]
		if o.Port == 0 {
			o.Port = 587
		}
	}
	return &Sender{opts: o}
}

// Validate checks the SMTP options.
func (o Options) Validate() error {
	switch o.TLS {
	case "", "none", "starttls", "tls":
	default:
		return app.Errorf(app.EINVALID, "SMTP TLS must be none, starttls or tls.")
	}
	if o.Host != "" && !strings.Contains(o.From, "@") {
		return app.Errorf(app.EINVALID, "The From address %q is not an email address.", o.From)
	}
	return nil
}

// Send delivers a message to one recipient.
func (s *Sender) Send(ctx context.Context, m *Message) error {
	if !s.opts.Configured() {
		return errors.New("no SMTP server is configured (set MORNINGDECK_SMTP_HOST and MORNINGDECK_SMTP_FROM)")
	}
	msg := gomail.NewMsg()
	if err := msg.From(s.opts.From); err != nil {
		return fmt.Errorf("from address: %w", err)
	}
	if err := msg.To(m.To); err != nil {
		return fmt.Errorf("recipient %q: %w", m.To, err)
	}
	msg.Subject(m.Subject)
	msg.SetDate()
	msg.SetMessageIDWithValue(m.ID)
	if m.Unsubscribe != "" {
		msg.SetGenHeader(gomail.HeaderListUnsubscribe, "<"+m.Unsubscribe+">")
		if m.OneClick { // RFC 8058: the link itself unsubscribes when POSTed to
			msg.SetGenHeader(gomail.Header("List-Unsubscribe-Post"), "List-Unsubscribe=One-Click")
		}
	}
	msg.SetBodyString(gomail.TypeTextPlain, m.Text)
	msg.AddAlternativeString(gomail.TypeTextHTML, m.HTML)
	opts := []gomail.Option{gomail.WithPort(s.opts.Port), gomail.WithTimeout(s.opts.Timeout)}
	switch s.opts.TLS {
	case "none":
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
	case "tls":
		opts = append(opts, gomail.WithSSL())
	default:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	}
	if s.opts.Username != "" {
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover), gomail.WithUsername(s.opts.Username), gomail.WithPassword(s.opts.Password))
	}
	if s.opts.Dial != nil {
		opts = append(opts, gomail.WithDialContextFunc(s.opts.Dial))
	}
	c, err := gomail.NewClient(s.opts.Host, opts...)
	if err != nil {
		return fmt.Errorf("SMTP client: %w", err)
	}
	if err := c.DialAndSendWithContext(ctx, msg); err != nil {
		if s.opts.Dial != nil {
			// A user's server while exposed: say what failed, never what an internal service answered.
			var be *feeds.BlockedError
			if errors.As(err, &be) {
				return fmt.Errorf("SMTP %s:%d: %w", s.opts.Host, s.opts.Port, be)
			}
			why := strings.TrimSuffix(s.explain(err), ": ")
			return fmt.Errorf("SMTP %s:%d: %s", s.opts.Host, s.opts.Port, cmp.Or(why, "the message could not be sent"))
		}
		return fmt.Errorf("SMTP %s:%d: %s%w", s.opts.Host, s.opts.Port, s.explain(err), err)
	}
	return nil
}

// explain puts the common failures in words before the library's own message.
func (s *Sender) explain(err error) string {
	var ne net.Error
	msg := err.Error()
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		return fmt.Sprintf("the server did not answer within %s: ", s.opts.Timeout)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET), strings.Contains(msg, ": EOF"), strings.Contains(msg, "connection reset"):
		return "the server closed the connection: "
	case errors.Is(err, syscall.ECONNREFUSED):
		return "nothing answers on that port: "
	case strings.Contains(msg, "short response"), strings.Contains(msg, "malformed"), strings.Contains(msg, "line too long"):
		return "the server does not speak SMTP as expected: "
	}
	return ""
}

// Message is one email.
type Message struct {
	UserID      int64  // whose SMTP settings send it
	ID          string // Message-ID, stable per delivery
	To          string
	Subject     string
	Text        string
	HTML        string
	Unsubscribe string // List-Unsubscribe: the signed one-click link, else the briefing's settings
	OneClick    bool   // Unsubscribe is an RFC 8058 one-click link (List-Unsubscribe-Post)
}

// ComposeWith makes the email of a report for one recipient: an HTML part with inline styles and
// no external assets, a plain-text part (plain text, not Markdown), links back to the report and
// its stories in the app, and unsubscribeURL — the recipient's signed one-click link
// (List-Unsubscribe with List-Unsubscribe-Post, RFC 8058); "" points at the briefing's settings.
// Times are in the briefing's zone.
func ComposeWith(b *app.Briefing, r *app.Report, deliveryID int64, to, baseURL, unsubscribeURL string) *Message {
	base := strings.TrimRight(baseURL, "/")
	loc := app.Location(b.Timezone)
	reportURL := fmt.Sprintf("%s/reports/%d", base, r.ID)
	settingsURL := base + "/briefings"
	unsub, oneClick := settingsURL, false
	if u := app.SafeLink(unsubscribeURL); u != "" {
		unsub, oneClick = u, true
	}
	htmlBody, text := render.ReportEmail(b, r, loc, to, render.EmailLinks{Base: base, Report: reportURL, Settings: settingsURL, Unsubscribe: unsub})
	host := "morningdeck.local"
	if i := strings.Index(base, "://"); i >= 0 {
		host = strings.Split(base[i+3:], "/")[0]
	}
	return &Message{
		UserID: b.UserID,
		ID:     fmt.Sprintf("report-%d-delivery-%d@%s", r.ID, deliveryID, strings.Split(host, ":")[0]), To: to,
		Subject: fmt.Sprintf("%s — %s", b.Name, r.PeriodEnd.In(loc).Format("Mon 2 Jan")), Text: text, HTML: htmlBody, Unsubscribe: unsub, OneClick: oneClick,
	}
}

// Merge returns base with the user's own settings where they are set. The operator's
// credentials, From address and TLS policy go only with the operator's host: a user who names
// their own host (another than the operator's) brings their own credentials and may set From
// and TLS; one who does not sends from the operator's address, with the operator's security.
func (o Options) Merge(host string, port int, username, password, from, tlsMode string) Options {
	if host == "" || strings.EqualFold(strings.TrimSpace(host), o.Host) && (port == 0 || port == o.Port) && username == "" {
		return o // the operator's server, as the operator configured it
	}
	o.Host, o.Port = host, port
	o.Username, o.Password = username, password
	o.From = cmp.Or(from, o.From)
	if tlsMode != "" {
		o.TLS = tlsMode
	}
	return o
}

// Override returns base with every field the user set (local mode, where the one user is the
// operator).
func (o Options) Override(host string, port int, username, password, from, tlsMode string) Options {
	if host != "" {
		o.Host, o.Port = host, port
		o.Username, o.Password = username, password
	}
	o.From = cmp.Or(from, o.From)
	o.TLS = cmp.Or(tlsMode, o.TLS)
	return o
}

// Own reports whether the options Merge returned name another server than base's (the user's own).
func (o Options) Own(base Options) bool {
	return o.Host != base.Host || o.Port != base.Port || o.Username != base.Username
}
