package app

import (
	"context"
	"database/sql"
	"errors"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// MailSecurity is how the connection to a mail server is protected.
type MailSecurity string

const (
	MailTLS      MailSecurity = "tls"      // implicit TLS, from the first byte (usually port 993)
	MailStartTLS MailSecurity = "starttls" // a plain connection upgraded by STARTTLS (usually port 143)
	MailPlain    MailSecurity = "plain"    // no encryption: allowed only to this machine (loopback)
)

// Limits and defaults of mail sources.
const (
	// DefaultFirstImport is how many of a folder's latest messages its first fetch takes.
	DefaultFirstImport = 50
	MaxFirstImport     = 1000
)

// Mailbox is where a mail source (SourceIMAP) reads: a folder of a mail account, optionally
// only the mail of one sender. The account's password is not part of it: it is stored sealed
// (SecretBox), apart, and read only to fetch (MailboxStore.MailAccount).
type Mailbox struct {
	Host     string
	Port     int
	Security MailSecurity
	Username string
	Folder   string
	// Sender, when not "", keeps only the mail from this address: one source per sender.
	Sender string
	// MarkRead marks the messages read (\Seen) on the server once they are items; off by
	// default, when the messages are read with BODY.PEEK and left as they were.
	MarkRead bool
	// FirstImport is how many of the folder's latest messages the first fetch takes.
	FirstImport int
	// Exclude: senders that have a source of their own in the same folder; the folder's source
	// leaves their mail to those (filled when fetching, not stored).
	Exclude []string
}

// URL is the mailbox's address, the source's URL: imaps://user@host:993/Folder for implicit
// TLS, imap://… otherwise (with ?tls=starttls or ?tls=none), and &from=sender for one sender.
// It never holds a password.
func (m Mailbox) URL() string {
	u := url.URL{Scheme: "imap", User: url.User(m.Username), Host: net.JoinHostPort(m.Host, strconv.Itoa(m.Port)), Path: "/" + m.Folder}
	q := url.Values{}
	switch m.Security {
	case MailTLS:
		u.Scheme = "imaps"
	case MailStartTLS:
		q.Set("tls", "starttls")
	case MailPlain:
		q.Set("tls", "none")
	}
	if m.Sender != "" {
		q.Set("from", m.Sender)
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// Account is the mailbox's server and user, "user@host:port", for messages.
func (m Mailbox) Account() string {
	return m.Username + " on " + net.JoinHostPort(m.Host, strconv.Itoa(m.Port))
}

// IsLoopback reports whether host names this machine (localhost or a loopback address).
func IsLoopback(host string) bool {
	h := strings.ToLower(strings.Trim(host, "[]"))
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// Clean checks a mailbox as a person entered it and fills its defaults.
func (m *Mailbox) Clean() error {
	m.Host = strings.TrimSpace(m.Host)
	m.Username = strings.TrimSpace(m.Username)
	m.Folder = strings.TrimSpace(m.Folder)
	m.Sender = strings.ToLower(strings.TrimSpace(m.Sender))
	if m.Host == "" || strings.ContainsAny(m.Host, " /\\@?#") || len(m.Host) > 253 {
		return Errorf(EINVALID, "Enter the mail server's name, like imap.fastmail.com.")
	}
	switch m.Security {
	case "":
		m.Security = MailTLS
	case MailTLS, MailStartTLS:
	case MailPlain:
		if !IsLoopback(m.Host) {
			return Errorf(EINVALID, "A connection without encryption is allowed only to this machine (localhost): choose TLS or STARTTLS for %s.", m.Host)
		}
	default:
		return Errorf(EINVALID, "Unknown connection security %q: use tls, starttls or plain.", m.Security)
	}
	if m.Port == 0 {
		m.Port = 993
		if m.Security != MailTLS {
			m.Port = 143
		}
	}
	if m.Port < 1 || m.Port > 65535 {
		return Errorf(EINVALID, "The port must be between 1 and 65535; got %d.", m.Port)
	}
	if m.Username == "" || len(m.Username) > 320 {
		return Errorf(EINVALID, "Enter the user name of the mail account (often the address).")
	}
	if m.Folder == "" {
		m.Folder = "INBOX"
	}
	if len(m.Folder) > 500 || strings.ContainsAny(m.Folder, "\r\n\x00") {
		return Errorf(EINVALID, "That folder name cannot be used.")
	}
	if m.Sender != "" && (!strings.Contains(m.Sender, "@") || strings.ContainsAny(m.Sender, " <>\"\r\n") || len(m.Sender) > 320) {
		return Errorf(EINVALID, "%q is not a mail address: give the sender's address, like news@example.com.", m.Sender)
	}
	if m.FirstImport == 0 {
		m.FirstImport = DefaultFirstImport
	}
	if m.FirstImport < 1 || m.FirstImport > MaxFirstImport {
		return Errorf(EINVALID, "The first import takes between 1 and %d messages; got %d.", MaxFirstImport, m.FirstImport)
	}
	return nil
}

// MailboxStore keeps the mailboxes of mail sources and their sealed passwords, apart from the
// sources: no query that shows a source reads them. Each method is one transaction.
type MailboxStore interface {
	// CreateMailSource inserts s with its mailbox and sealed password and calls then, in one
	// transaction.
	CreateMailSource(ctx context.Context, s *Source, m Mailbox, sealed []byte, then TxFunc) error
	// Mailbox is the mailbox of one of the user's sources, without its password.
	Mailbox(ctx context.Context, userID, sourceID int64) (*Mailbox, error)
	// UpdateMailbox changes a mailbox (its source's URL with it); a nil sealed keeps the password.
	UpdateMailbox(ctx context.Context, userID, sourceID int64, m Mailbox, sealed []byte) error
	// MailAccount is a source's mailbox and sealed password, for the fetcher alone; Exclude
	// holds the senders of the other sources reading the same folder one sender each.
	MailAccount(ctx context.Context, sourceID int64) (*Mailbox, []byte, error)
	// MailSenders lists the senders (address and name) of a mail source's items, most items first.
	MailSenders(ctx context.Context, userID, sourceID int64, limit int) ([]MailSender, error)
}

// MailSender is one sender of a mail folder's items.
type MailSender struct {
	Address, Name string
	Items         int
	SourceID      int64 // the sender's own source, 0 when none
}

// MailFetcher reads mail folders over IMAP; app/feeds is the real one. Its failures are
// *FetchError, with a message that says in plain words what failed.
type MailFetcher interface {
	// FetchMail reads the messages after cursor (the last fetch's ETag; "" for the first, which
	// takes the latest m.FirstImport): each is an item; the result's ETag is the new cursor.
	FetchMail(ctx context.Context, m Mailbox, password, cursor string) (*FetchResult, error)
	// CheckMail connects, logs in and opens the folder, and reports what failed.
	CheckMail(ctx context.Context, m Mailbox, password string) error
}

// AddMail is the input of Sources.AddMail.
type AddMail struct {
	UserID                 int64
	Name                   string
	Mailbox                Mailbox
	Password               string
	RefreshIntervalMinutes *int
	Folder                 string // the Morning Deck folder (not the mail folder)
}

// mailReady says whether the service can read mail.
func (s *Sources) mailReady() error {
	if s.Mail == nil || s.Mailboxes == nil || s.Secrets == nil {
		return Errorf(EINVALID, "This installation cannot read mail folders.")
	}
	return nil
}

// AddMail checks a mail folder (it connects, logs in and opens the folder, and says what
// failed), then stores it as a source, its password sealed, and queues its first fetch.
func (s *Sources) AddMail(ctx context.Context, in AddMail) (*Source, error) {
	if err := s.mailReady(); err != nil {
		return nil, err
	}
	if in.UserID == 0 {
		in.UserID = DefaultUserID
	}
	m := in.Mailbox
	if err := m.Clean(); err != nil {
		return nil, err
	}
	if in.Password == "" {
		return nil, Errorf(EINVALID, "Enter the password of the mail account (an app password where the provider offers them).")
	}
	interval, folder, err := addedPlace(in.RefreshIntervalMinutes, in.Folder)
	if err != nil {
		return nil, err
	}
	if err := s.checkSourceRoom(ctx, in.UserID); err != nil {
		return nil, err
	}
	if folder != "" {
		if err := s.checkFolderRoom(ctx, in.UserID, folder); err != nil {
			return nil, err
		}
	}
	if err := s.CheckMail(ctx, m, in.Password); err != nil {
		return nil, err
	}
	name := strings.TrimSpace(in.Name)
	if name == "" {
		name = m.Folder
		if m.Sender != "" {
			name = m.Sender
		}
	}
	src := &Source{UserID: in.UserID, Type: SourceIMAP, URL: m.URL(), Name: name, Status: SourceActive,
		FetchStatus: FetchQueued, RefreshIntervalMinutes: interval, Folder: folder}
	err = s.Mailboxes.CreateMailSource(ctx, src, m, s.Secrets.Seal(in.Password), func(ctx context.Context, tx *sql.Tx) error {
		return s.Queue.EnqueueTx(ctx, tx, src.ID, PriorityNew)
	})
	if err != nil {
		return nil, err
	}
	// The URL holds no password; the password is never logged.
	s.log().Info("mail source added", "source", src.ID, "url", src.URL)
	return src, nil
}

// CheckMail connects to a mailbox, logs in and opens its folder; a failure is an EINVALID
// error that says in plain words what failed (the server's name, TLS, the login, the folder).
func (s *Sources) CheckMail(ctx context.Context, m Mailbox, password string) error {
	if err := s.mailReady(); err != nil {
		return err
	}
	if err := m.Clean(); err != nil {
		return err
	}
	err := s.Mail.CheckMail(PersonWaiting(ctx), m, password)
	var fe *FetchError
	if errors.As(err, &fe) {
		return Errorf(EINVALID, "%s", fe.Message)
	}
	return err
}

// UpdateMail changes a mail source's mailbox; an empty password keeps the stored one. The
// folder is checked again (with the stored password when none is given).
func (s *Sources) UpdateMail(ctx context.Context, userID, id int64, m Mailbox, password string) error {
	if err := s.mailReady(); err != nil {
		return err
	}
	if err := m.Clean(); err != nil {
		return err
	}
	pw := password
	if pw == "" {
		_, sealed, err := s.Mailboxes.MailAccount(ctx, id)
		if err != nil {
			return err
		}
		if pw, err = s.Secrets.Open(sealed); err != nil {
			return err
		}
	}
	if _, err := s.Mailboxes.Mailbox(ctx, userID, id); err != nil {
		return err // not the user's
	}
	if err := s.CheckMail(ctx, m, pw); err != nil {
		return err
	}
	var sealed []byte
	if password != "" {
		sealed = s.Secrets.Seal(password)
	}
	return s.Mailboxes.UpdateMailbox(ctx, userID, id, m, sealed)
}

// Mailbox is the mailbox of one of the user's mail sources, without its password.
func (s *Sources) Mailbox(ctx context.Context, userID, id int64) (*Mailbox, error) {
	if s.Mailboxes == nil {
		return nil, Errorf(ENOTFOUND, "Source %d is not a mail folder.", id)
	}
	return s.Mailboxes.Mailbox(ctx, userID, id)
}

// MailSenders lists the senders of a mail source's items (the Sources page's newsletters by sender).
func (s *Sources) MailSenders(ctx context.Context, userID, id int64) ([]MailSender, error) {
	if s.Mailboxes == nil {
		return nil, nil
	}
	return s.Mailboxes.MailSenders(ctx, userID, id, 200)
}

// FollowSender adds a source for one sender of a mail source's folder, on the same account:
// from then on the folder's source leaves that sender's mail to it.
func (s *Sources) FollowSender(ctx context.Context, userID, id int64, sender, name string) (*Source, error) {
	if err := s.mailReady(); err != nil {
		return nil, err
	}
	src, err := s.Store.Source(ctx, userID, id)
	if err != nil {
		return nil, err
	}
	m, sealed, err := s.Mailboxes.MailAccount(ctx, id)
	if err != nil {
		return nil, err
	}
	pw, err := s.Secrets.Open(sealed)
	if err != nil {
		return nil, err
	}
	mb := *m
	mb.Sender, mb.Exclude = sender, nil
	if err := mb.Clean(); err != nil {
		return nil, err
	}
	if name = strings.TrimSpace(name); name == "" {
		name = mb.Sender
	}
	interval := src.RefreshIntervalMinutes
	if err := s.checkSourceRoom(ctx, userID); err != nil {
		return nil, err
	}
	n := &Source{UserID: userID, Type: SourceIMAP, URL: mb.URL(), Name: name, Status: SourceActive,
		FetchStatus: FetchQueued, RefreshIntervalMinutes: interval, Folder: src.Folder}
	err = s.Mailboxes.CreateMailSource(ctx, n, mb, s.Secrets.Seal(pw), func(ctx context.Context, tx *sql.Tx) error {
		return s.Queue.EnqueueTx(ctx, tx, n.ID, PriorityNew)
	})
	if err != nil {
		return nil, err
	}
	s.log().Info("mail sender followed", "source", n.ID, "folderSource", id)
	return n, nil
}

// fetchMail reads a mail source: its mailbox and password, then the folder after the cursor.
func (s *Sources) fetchMail(ctx context.Context, src *Source) (*FetchResult, error) {
	if err := s.mailReady(); err != nil {
		return nil, &FetchError{Message: ErrorMessage(err), Err: err}
	}
	m, sealed, err := s.Mailboxes.MailAccount(ctx, src.ID)
	if err != nil {
		return nil, err
	}
	pw, err := s.Secrets.Open(sealed)
	if err != nil {
		return nil, &FetchError{Message: ErrorMessage(err), Err: err}
	}
	return s.Mail.FetchMail(ctx, *m, pw, src.ETag)
}
