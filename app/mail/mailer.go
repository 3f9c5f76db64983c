package mail

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

// SettingsReader reads a user's settings (their own SMTP server, if any).
type SettingsReader interface {
	Settings(ctx context.Context, userID int64) (*app.Settings, error)
}

// Mailer sends Morning Deck's emails with the user's SMTP settings where set, else Default
// (the flags and environment). It is the app.Mailer.
type Mailer struct {
	Default  Options
	Settings SettingsReader // nil: Default for everyone
	BaseURL  string         // where the links in a report point
	// Dial, when set (the app is exposed), connects to the SMTP servers users chose: the
	// fetcher's SSRF guard. The operator's own server is dialled directly.
	Dial func(ctx context.Context, network, address string) (net.Conn, error)
	// Exposed: users are not the operator, so the operator's account is used only as the
	// operator configured it (Options.Merge). In local mode the one user is the operator, and
	// their settings override any field (Options.Override).
	Exposed bool
	// Unsubscribes, when set, signs each recipient's one-click unsubscribe link.
	Unsubscribes *app.Unsubscribes
}

var _ app.Mailer = (*Mailer)(nil)

// optionsFor is Default merged with the user's own SMTP settings.
func (m *Mailer) optionsFor(ctx context.Context, userID int64) Options {
	if m.Settings == nil {
		return m.Default
	}
	s, err := m.Settings.Settings(ctx, userID)
	if err != nil {
		return m.Default
	}
	if !m.Exposed {
		return m.Default.Override(s.SMTPHost, s.SMTPPort, s.SMTPUsername, s.SMTPPassword, s.SMTPFrom, s.SMTPTLS)
	}
	o := m.Default.Merge(s.SMTPHost, s.SMTPPort, s.SMTPUsername, s.SMTPPassword, s.SMTPFrom, s.SMTPTLS)
	if o.Own(m.Default) && m.Dial != nil {
		o.Dial = m.Dial
	}
	return o
}

// Send sends one message with its user's settings.
func (m *Mailer) Send(ctx context.Context, msg *Message) error {
	return New(m.optionsFor(ctx, msg.UserID)).Send(ctx, msg)
}

// SendReport sends delivery d of report r.
func (m *Mailer) SendReport(ctx context.Context, b *app.Briefing, r *app.Report, d *app.Delivery) error {
	unsub := ""
	if m.Unsubscribes != nil {
		u, err := m.Unsubscribes.Link(ctx, m.BaseURL, b.ID, d.Recipient)
		if err != nil {
			return fmt.Errorf("unsubscribe link: %w", err)
		}
		unsub = u
	}
	return m.Send(ctx, ComposeWith(b, r, d.ID, d.Recipient, m.BaseURL, unsub))
}

// SendTest sends the settings page's test email.
func (m *Mailer) SendTest(ctx context.Context, userID int64, to string) error {
	return m.Send(ctx, &Message{UserID: userID,
		ID: fmt.Sprintf("test-%d@morningdeck.local", time.Now().UnixNano()), To: to, Subject: "Morning Deck test email",
		Text: "This is a test email from Morning Deck. Report emails will come from this address.\n",
		HTML: "<p>This is a test email from Morning Deck. Report emails will come from this address.</p>",
	})
}
