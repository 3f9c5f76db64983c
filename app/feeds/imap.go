package feeds

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/emersion/go-message/textproto"

	"github.com/morningdeck/morningdeck/app"
)

// Defaults of MailOptions.
const (
	DefaultMailTimeout     = 2 * time.Minute
	DefaultMailDialTimeout = 15 * time.Second
	// DefaultMailPerFetch is the most messages one fetch makes items of: a folder's backlog is
	// read a page each interval.
	DefaultMailPerFetch = 200
	// mailUIDWindow is how many UIDs one UID FETCH of a later fetch asks about: a folder of a
	// million messages is paged by UID ranges, never listed whole.
	mailUIDWindow = 500
	// mailMaxWindow is the widest window, after empty ones; mailWindows the most windows one
	// fetch asks about.
	mailMaxWindow = 8192
	mailWindows   = 64
)

// MailOptions configure a Mail reader. Zero values take the defaults.
type MailOptions struct {
	// Timeout bounds one whole fetch or check: connecting, logging in and reading. A server
	// that stalls fails within it with a message that says so.
	Timeout     time.Duration
	DialTimeout time.Duration
	// Dial connects (the fetch guard's dialer when the server is exposed); nil: a net.Dialer.
	Dial func(ctx context.Context, network, address string) (net.Conn, error)
	// RootCAs, when set, are the certificates trusted for TLS (tests); nil: the system's.
	RootCAs *x509.CertPool
	// PerFetch is the most messages one fetch makes items of; default DefaultMailPerFetch.
	PerFetch int
	// MaxFetchBytes bounds what one fetch reads of its messages; default DefaultMailFetchBytes.
	MaxFetchBytes int64
	// Clock for the deadlines; nil: the system's.
	Clock app.Clock
}

// Mail reads mail folders over IMAP (app.MailFetcher). It never deletes or moves a message:
// it opens the folder read-only (EXAMINE), reads with BODY.PEEK, and only when a mailbox asks
// for it marks the messages it read \Seen.
type Mail struct{ opts MailOptions }

var _ app.MailFetcher = (*Mail)(nil)

// NewMail returns a Mail reader.
func NewMail(o MailOptions) *Mail {
	if o.Timeout <= 0 {
		o.Timeout = DefaultMailTimeout
	}
	if o.DialTimeout <= 0 {
		o.DialTimeout = DefaultMailDialTimeout
	}
	if o.PerFetch <= 0 {
		o.PerFetch = DefaultMailPerFetch
	}
	if o.MaxFetchBytes <= 0 {
		o.MaxFetchBytes = DefaultMailFetchBytes
	}
	return &Mail{opts: o}
}

// mailError is a failed mail fetch: Kind is one of the fetch error kinds (KindDNS, KindTLS, …).
func mailError(kind, msg string, err error) *app.FetchError {
	e := &Error{Kind: kind, Message: msg, Err: err}
	network := false
	switch kind {
	case KindDNS, KindConnect, KindTimeout, KindNetwork:
		network = true
	}
	return &app.FetchError{Message: msg, Network: network, Err: e}
}

// session is a logged-in connection with its folder open.
type session struct {
	c    *imapclient.Client
	conn net.Conn
	sel  *imap.SelectData
	stop func() bool
	// deadline ends the session: an error at or past it is the server's stalling.
	deadline time.Time
}

func (s *session) close() {
	s.stop()
	// LOGOUT is a courtesy: the connection is closed whatever the server says.
	_ = s.conn.SetDeadline(time.Now().Add(2 * time.Second))
	_ = s.c.Logout().Wait()
	_ = s.c.Close()
}

// open connects, logs in and opens the folder (read-only unless the mailbox marks messages
// read), all before deadline; each failure says in plain words what failed.
func (m *Mail) open(ctx context.Context, mb app.Mailbox, password string) (*session, error) {
	clock := app.ClockOrSystem(m.opts.Clock)
	deadline := clock.Now().Add(m.opts.Timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	addr := net.JoinHostPort(mb.Host, strconv.Itoa(mb.Port))
	if mb.Security == app.MailPlain && !app.IsLoopback(mb.Host) {
		return nil, mailError(KindBlocked, "A connection without encryption is allowed only to this machine (localhost).", nil)
	}
	dctx, cancel := context.WithTimeout(ctx, min(m.opts.DialTimeout, time.Until(deadline)))
	defer cancel()
	var conn net.Conn
	var err error
	if m.opts.Dial != nil {
		conn, err = m.opts.Dial(dctx, "tcp", addr)
	} else {
		conn, err = (&net.Dialer{}).DialContext(dctx, "tcp", addr)
	}
	if err != nil {
		return nil, dialError(mb, err)
	}
	// Every read and write of the session ends by the deadline (the client's own timeouts,
	// minutes long, are held to it), and at once when ctx ends.
	conn = &deadlineConn{Conn: conn, hard: deadline}
	_ = conn.SetDeadline(deadline)
	raw := conn
	stop := context.AfterFunc(ctx, func() { _ = raw.Close() })
	fail := func(e error) (*session, error) {
		stop()
		_ = conn.Close()
		return nil, e
	}
	tlsConfig := &tls.Config{ServerName: mb.Host, RootCAs: m.opts.RootCAs, MinVersion: tls.VersionTLS12}
	var c *imapclient.Client
	switch mb.Security {
	case app.MailTLS:
		tc := tls.Client(conn, tlsConfig)
		if err := tc.HandshakeContext(ctx); err != nil {
			return fail(tlsError(mb, err))
		}
		conn = tc
		c = imapclient.New(tc, nil)
	case app.MailStartTLS:
		c, err = imapclient.NewStartTLS(conn, &imapclient.Options{TLSConfig: tlsConfig})
		if err != nil {
			if timedOut(err) || !time.Now().Before(deadline.Add(-50*time.Millisecond)) {
				return fail(stallError(mb, err))
			}
			return fail(mailError(KindTLS, fmt.Sprintf("The secure connection (STARTTLS) to %s failed: %s Check the connection security: port 993 usually takes TLS, port 143 STARTTLS.", addr, mailTLSReason(err)), err))
		}
	default:
		c = imapclient.New(conn, nil)
	}
	s := &session{c: c, conn: conn, stop: stop, deadline: deadline}
	if err := c.WaitGreeting(); err != nil {
		_ = c.Close()
		return fail(protocolError(mb, err, "The server at "+addr+" did not greet as an IMAP server does: check the host and port.", deadline))
	}
	if err := c.Login(mb.Username, password).Wait(); err != nil {
		_ = c.Close()
		var ie *imap.Error
		if errors.As(err, &ie) {
			return fail(mailError(KindHTTPStatus, fmt.Sprintf("The server refused the login of %s: check the user name and the password (Gmail, Fastmail, iCloud and Yahoo need an app password). The server said: %s", mb.Username, app.Shorten(ie.Text, 200)), err))
		}
		return fail(protocolError(mb, err, "The login failed.", deadline))
	}
	sel, err := c.Select(mb.Folder, &imap.SelectOptions{ReadOnly: !mb.MarkRead}).Wait()
	if err != nil {
		_ = c.Close()
		var ie *imap.Error
		if errors.As(err, &ie) {
			return fail(mailError(KindHTTPStatus, fmt.Sprintf("There is no folder %q on this account (the server said: %s): give the folder's name as the server names it, like INBOX or INBOX/Newsletters.", mb.Folder, app.Shorten(ie.Text, 200)), err))
		}
		return fail(protocolError(mb, err, "The folder could not be opened.", deadline))
	}
	s.sel = sel
	return s, nil
}

func dialError(mb app.Mailbox, err error) error {
	addr := net.JoinHostPort(mb.Host, strconv.Itoa(mb.Port))
	var dns *net.DNSError
	var op *net.OpError
	var blocked *BlockedError
	switch {
	case errors.As(err, &blocked):
		return mailError(KindBlocked, fmt.Sprintf("%s is a private or local address, which this server does not connect to.", addr), err)
	case errors.As(err, &dns):
		return mailError(KindDNS, fmt.Sprintf("The mail server %s could not be found: check its name.", mb.Host), err)
	case timedOut(err):
		return mailError(KindTimeout, fmt.Sprintf("The mail server %s did not answer in time.", addr), err)
	case errors.As(err, &op) && strings.Contains(err.Error(), "refused"):
		return mailError(KindConnect, fmt.Sprintf("The mail server %s refused the connection: check the port (993 for TLS, 143 for STARTTLS).", addr), err)
	}
	return mailError(KindConnect, fmt.Sprintf("Could not connect to the mail server %s.", addr), err)
}

func timedOut(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

func stallError(mb app.Mailbox, err error) error {
	return mailError(KindTimeout, fmt.Sprintf("The mail server %s stopped answering: nothing came within the time a fetch is given.", net.JoinHostPort(mb.Host, strconv.Itoa(mb.Port))), err)
}

func tlsError(mb app.Mailbox, err error) error {
	if timedOut(err) {
		return stallError(mb, err)
	}
	addr := net.JoinHostPort(mb.Host, strconv.Itoa(mb.Port))
	return mailError(KindTLS, fmt.Sprintf("The secure connection (TLS) to %s failed: %s Check the connection security: port 993 usually takes TLS, port 143 STARTTLS.", addr, mailTLSReason(err)), err)
}

// mailTLSReason says why a TLS handshake with a mail server failed, ending with a period.
func mailTLSReason(err error) string {
	switch {
	case strings.Contains(err.Error(), "first record does not look like a TLS handshake"), strings.Contains(err.Error(), "record header"):
		return "the server does not speak TLS on this port."
	case strings.Contains(strings.ToLower(err.Error()), "starttls"):
		return "the server does not offer STARTTLS."
	}
	return tlsReason(err) + "."
}

func protocolError(mb app.Mailbox, err error, msg string, deadline time.Time) error {
	// The client reports a timeout in words, not as a net.Error: the deadline tells.
	if timedOut(err) || !time.Now().Before(deadline.Add(-50*time.Millisecond)) {
		return stallError(mb, err)
	}
	return mailError(KindNetwork, msg, err)
}

// CheckMail connects, logs in and opens the folder (app.MailFetcher).
func (m *Mail) CheckMail(ctx context.Context, mb app.Mailbox, password string) error {
	s, err := m.open(ctx, mb, password)
	if err != nil {
		return err
	}
	s.close()
	return nil
}

// cursor is where a mail source's last fetch stopped: the folder's UIDVALIDITY and the last UID
// looked at, written "uidvalidity:uid" in the source's ETag.
type cursor struct {
	validity uint32
	uid      imap.UID
}

func parseCursor(s string) (cursor, bool) {
	a, b, ok := strings.Cut(s, ":")
	if !ok {
		return cursor{}, false
	}
	v, err1 := strconv.ParseUint(a, 10, 32)
	u, err2 := strconv.ParseUint(b, 10, 32)
	if err1 != nil || err2 != nil {
		return cursor{}, false
	}
	return cursor{uint32(v), imap.UID(u)}, true
}

func (c cursor) String() string { return fmt.Sprintf("%d:%d", c.validity, c.uid) }

// FetchMail reads the folder's messages after cursor (app.MailFetcher): the first fetch (or one
// after the folder's UIDVALIDITY changed) takes the latest mb.FirstImport (of the folder, or of
// its sender's messages, found by UID SEARCH, for one sender's source); a later one the
// messages after the last UID read, at most PerFetch, asking about mailUIDWindow UIDs at a time.
// Nothing new is NotModified. A message of at most maxWholeMessage is read whole; of a larger
// one only the header and the text and HTML parts, found in its BODYSTRUCTURE, are fetched,
// never its attachments.
func (m *Mail) FetchMail(ctx context.Context, mb app.Mailbox, password, cur string) (*app.FetchResult, error) {
	s, err := m.open(ctx, mb, password)
	if err != nil {
		return nil, err
	}
	defer s.close()
	fail := func(err error) (*app.FetchResult, error) {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, protocolError(mb, err, "Reading the folder failed: "+app.Shorten(err.Error(), 200), s.deadline)
	}
	sel := s.sel
	c, ok := parseCursor(cur)
	first := !ok || c.validity != sel.UIDValidity
	next := cursor{validity: sel.UIDValidity, uid: c.uid}
	var metas []*imapclient.FetchMessageBuffer
	meta := &imap.FetchOptions{UID: true, RFC822Size: true, InternalDate: true, Envelope: true, BodyStructure: &imap.FetchItemBodyStructure{Extended: true}}
	if first && mb.Sender != "" && sel.NumMessages > 0 {
		// One sender's source: its latest FirstImport messages, found by the server (UID SEARCH
		// FROM), not among the folder's latest.
		data, err := s.c.UIDSearch(&imap.SearchCriteria{Header: []imap.SearchCriteriaHeaderField{{Key: "From", Value: mb.Sender}}}, nil).Wait()
		if err != nil {
			return fail(err)
		}
		uids := data.AllUIDs()
		if len(uids) > mb.FirstImport {
			uids = uids[len(uids)-mb.FirstImport:]
		}
		if len(uids) > 0 {
			if metas, err = s.c.Fetch(imap.UIDSetNum(uids...), meta).Collect(); err != nil {
				return fail(err)
			}
		}
		next.uid = 0
		if sel.UIDNext > 0 {
			next.uid = sel.UIDNext - 1
		}
		for _, p := range metas {
			next.uid = max(next.uid, p.UID)
		}
	} else if first {
		next.uid = 0
		if sel.NumMessages > 0 {
			from := uint32(1)
			if n := uint32(mb.FirstImport); sel.NumMessages > n {
				from = sel.NumMessages - n + 1
			}
			var set imap.SeqSet
			set.AddRange(from, sel.NumMessages)
			if metas, err = s.c.Fetch(set, meta).Collect(); err != nil {
				return fail(err)
			}
		}
		if sel.UIDNext > 0 {
			next.uid = sel.UIDNext - 1
		}
		for _, p := range metas { // a server that gives no UIDNEXT
			next.uid = max(next.uid, p.UID)
		}
	} else {
		// UIDs after the cursor, a window at a time, until a page is full or UIDNEXT is reached.
		// An empty window (UIDs of messages deleted since) doubles the next one, up to
		// mailMaxWindow; at most mailWindows are asked about in one fetch, so that a gap of
		// millions of UIDs is crossed over a few fetches, each storing how far it got, rather
		// than by one that runs out of time and starts over.
		end := sel.UIDNext
		width := imap.UID(mailUIDWindow)
		from := c.uid + 1
		for w := 0; w < mailWindows && len(metas) < m.opts.PerFetch && (end == 0 || from < end) && sel.NumMessages > 0; w++ {
			to := from + width - 1
			if to < from { // past the last UID there can be
				break
			}
			if end > 0 && to >= end {
				to = end - 1
			}
			var set imap.UIDSet
			set.AddRange(from, to)
			page, err := s.c.Fetch(set, meta).Collect()
			if err != nil {
				return fail(err)
			}
			sort.Slice(page, func(i, j int) bool { return page[i].UID < page[j].UID })
			for _, p := range page {
				if p.UID <= c.uid {
					continue // "n:*" may answer with the last message even when n is past it
				}
				if len(metas) == m.opts.PerFetch {
					break
				}
				metas = append(metas, p)
				next.uid = max(next.uid, p.UID)
			}
			if len(metas) < m.opts.PerFetch {
				next.uid = max(next.uid, to)
			}
			if end == 0 && len(page) == 0 {
				break
			}
			if len(page) == 0 {
				width = min(width*2, mailMaxWindow)
			} else {
				width = mailUIDWindow
			}
			from = to + 1
		}
	}
	if len(metas) == 0 {
		res := &app.FetchResult{Title: mb.Folder, ETag: next.String()}
		res.NotModified = next.String() == cur
		return res, nil
	}
	metas, next = withinBudget(mb, metas, first, next, m.opts.MaxFetchBytes)
	var whole, large []*imapclient.FetchMessageBuffer
	var read imap.UIDSet
	for _, p := range metas {
		if !wanted(mb, p.Envelope) {
			continue
		}
		read.AddNum(p.UID)
		if p.RFC822Size > 0 && p.RFC822Size <= maxWholeMessage {
			whole = append(whole, p)
		} else {
			large = append(large, p)
		}
	}
	items, err := m.readWhole(s, whole)
	if err != nil {
		return fail(err)
	}
	for _, p := range large {
		it, err := m.readParts(s, p)
		if err != nil {
			return fail(err)
		}
		items = append(items, it)
	}
	if mb.MarkRead && len(read) > 0 {
		if err := s.c.Store(read, &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{imap.FlagSeen}}, nil).Close(); err != nil {
			return fail(err)
		}
	}
	// Newest first, as feeds list them (the first import's scoring takes them in this order);
	// the later UID first among messages of one date (items come in UID order).
	slices.Reverse(items)
	sort.SliceStable(items, func(i, j int) bool {
		a, b := items[i].PublishedAt, items[j].PublishedAt
		return a != nil && (b == nil || a.After(*b))
	})
	res := &app.FetchResult{Title: mb.Folder, ETag: next.String(), Items: items}
	if mb.Sender != "" {
		res.Title = mb.Sender
	}
	return res, nil
}

// DefaultMailFetchBytes bounds what one fetch reads of its messages (their sizes, as the server
// gives them, a large message's counted as the parts read of it): the items it makes are held
// in memory until they are stored. A first import keeps its newest messages within it, a later
// fetch its oldest (at least one), and the next fetch goes on from there.
const DefaultMailFetchBytes = 64 << 20

func withinBudget(mb app.Mailbox, metas []*imapclient.FetchMessageBuffer, first bool, next cursor, budget int64) ([]*imapclient.FetchMessageBuffer, cursor) {
	sort.Slice(metas, func(i, j int) bool { return metas[i].UID < metas[j].UID })
	cost := func(p *imapclient.FetchMessageBuffer) int64 {
		if !wanted(mb, p.Envelope) {
			return 0
		}
		if p.RFC822Size > 0 && p.RFC822Size <= maxWholeMessage {
			return p.RFC822Size
		}
		return 4 * maxMailPartBytes // the header and at most two parts of at most 2 MiB as sent
	}
	if first {
		i := len(metas)
		for i > 0 && (i == len(metas) || budget-cost(metas[i-1]) >= 0) {
			budget -= cost(metas[i-1])
			i--
		}
		return metas[i:], next
	}
	i := 0
	for i < len(metas) && (i == 0 || budget-cost(metas[i]) >= 0) {
		budget -= cost(metas[i])
		i++
	}
	if i < len(metas) {
		next.uid = metas[i-1].UID
	}
	return metas[:i], next
}

// wanted reports whether a message is the mailbox's: from its sender, when it has one, and not
// from a sender that has a source of its own.
func wanted(mb app.Mailbox, env *imap.Envelope) bool {
	from := ""
	if env != nil && len(env.From) > 0 {
		from = strings.ToLower(env.From[0].Addr())
	}
	if mb.Sender != "" {
		return from == mb.Sender
	}
	for _, x := range mb.Exclude {
		if from == x {
			return false
		}
	}
	return true
}

// readWhole fetches the given messages whole (each at most maxWholeMessage) and makes items of them.
func (m *Mail) readWhole(s *session, msgs []*imapclient.FetchMessageBuffer) ([]app.Item, error) {
	if len(msgs) == 0 {
		return nil, nil
	}
	byUID := map[imap.UID]*imapclient.FetchMessageBuffer{}
	var set imap.UIDSet
	for _, p := range msgs {
		byUID[p.UID] = p
		set.AddNum(p.UID)
	}
	section := &imap.FetchItemBodySection{Peek: true}
	cmd := s.c.Fetch(set, &imap.FetchOptions{UID: true, BodySection: []*imap.FetchItemBodySection{section}})
	var items []app.Item
	for {
		msg := cmd.Next()
		if msg == nil {
			break
		}
		var uid imap.UID
		var body []byte
		for {
			item := msg.Next()
			if item == nil {
				break
			}
			switch item := item.(type) {
			case imapclient.FetchItemDataUID:
				uid = item.UID
			case imapclient.FetchItemDataBodySection:
				if item.Literal != nil {
					// A server may send more than RFC822.SIZE said: what is past the bound is
					// left unread (the client discards it).
					body, _ = io.ReadAll(io.LimitReader(item.Literal, maxWholeMessage))
				}
			}
		}
		p := byUID[uid]
		if p == nil || body == nil {
			continue
		}
		it, err := MailItem(bytes.NewReader(body), p.InternalDate)
		if err != nil {
			it = fallbackItem(p, s.sel.UIDValidity)
		}
		fillFromEnvelope(&it, p, s.sel.UIDValidity)
		items = append(items, it)
	}
	if err := cmd.Close(); err != nil {
		return nil, err
	}
	return items, nil
}

// fallbackItem is the item of a message whose header cannot be read: its envelope's subject,
// sender and date, and, when the envelope has no Message-ID either, the message's UID (with the
// folder's UIDVALIDITY) as its GUID, so that two such messages stay two items.
func fallbackItem(p *imapclient.FetchMessageBuffer, validity uint32) app.Item {
	var h textproto.Header
	if env := p.Envelope; env != nil {
		h.Set("Subject", env.Subject)
		if len(env.From) > 0 {
			h.Set("From", fmt.Sprintf("%q <%s>", env.From[0].Name, env.From[0].Addr()))
		}
		if !env.Date.IsZero() {
			h.Set("Date", env.Date.Format(time.RFC1123Z))
		}
		if env.MessageID != "" {
			h.Set("Message-Id", "<"+env.MessageID+">")
		}
	}
	it, _ := headerItem(h, mailBody{Broken: true}, p.InternalDate)
	if p.Envelope == nil || p.Envelope.MessageID == "" {
		it.GUID = fmt.Sprintf("imap-uid:%d:%d", validity, p.UID)
	}
	return it
}

// fillFromEnvelope completes the item of a message whose header we could not read in full with
// what the server's envelope says: its subject, its sender and its Message-ID, else its UID.
func fillFromEnvelope(it *app.Item, p *imapclient.FetchMessageBuffer, validity uint32) {
	if !strings.HasPrefix(it.GUID, mailHashGUID) {
		return
	}
	env := p.Envelope
	if env != nil && env.MessageID != "" {
		it.GUID = boundGUID(env.MessageID)
	} else {
		it.GUID = fmt.Sprintf("imap-uid:%d:%d", validity, p.UID)
	}
	if env == nil {
		return
	}
	if it.Title == noSubject && strings.TrimSpace(env.Subject) != "" {
		it.Title = app.Shorten(collapseSpace(env.Subject), maxTitleRunes)
	}
	if it.Author == "" && len(env.From) > 0 {
		it.Author = app.Shorten(collapseSpace(app.FirstNonEmpty(env.From[0].Name, env.From[0].Addr())), maxAuthorRunes)
		if it.Extra == nil {
			it.Extra = map[string]any{}
		}
		it.Extra[app.ExtraSender] = strings.ToLower(env.From[0].Addr())
	}
}

// readParts fetches a large message's header and its first text/html and text/plain parts
// (not in an attachment, not nested deeper than maxMailDepth, each at most maxMailPartBytes as
// sent), never its other parts, and makes its item.
func (m *Mail) readParts(s *session, p *imapclient.FetchMessageBuffer) (app.Item, error) {
	type pick struct {
		path     []int
		part     *imap.BodyStructureSinglePart
		mediaTyp string
	}
	var html, text *pick
	body := mailBody{}
	if p.BodyStructure != nil {
		n := 0
		p.BodyStructure.Walk(func(path []int, bs imap.BodyStructure) bool {
			n++
			if n > maxMailParts || len(path) > maxMailDepth {
				body.Skipped++
				return false
			}
			sp, ok := bs.(*imap.BodyStructureSinglePart)
			if !ok {
				return true
			}
			if d := sp.Disposition(); d != nil && strings.EqualFold(d.Value, "attachment") {
				body.Skipped++
				return false
			}
			mt := sp.MediaType()
			if int64(sp.Size) > maxMailPartBytes*2 { // as sent: base64 and QP grow the text
				body.Skipped++
				return false
			}
			switch {
			case mt == "text/html" && html == nil:
				html = &pick{append([]int(nil), path...), sp, mt}
			case mt == "text/plain" && text == nil:
				text = &pick{append([]int(nil), path...), sp, mt}
			default:
				body.Skipped++
			}
			return false
		})
	}
	header := &imap.FetchItemBodySection{Specifier: imap.PartSpecifierHeader, Peek: true}
	opts := &imap.FetchOptions{UID: true, BodySection: []*imap.FetchItemBodySection{header}}
	sections := map[*pick]*imap.FetchItemBodySection{}
	for _, pk := range []*pick{html, text} {
		if pk != nil {
			sec := &imap.FetchItemBodySection{Part: pk.path, Peek: true}
			sections[pk] = sec
			opts.BodySection = append(opts.BodySection, sec)
		}
	}
	buf, err := s.c.Fetch(imap.UIDSetNum(p.UID), opts).Collect()
	if err != nil {
		return app.Item{}, err
	}
	if len(buf) == 0 {
		return fallbackItem(p, s.sel.UIDValidity), nil
	}
	h, herr := textproto.ReadHeader(bufioReader(buf[0].FindBodySection(header)))
	if herr != nil {
		return fallbackItem(p, s.sel.UIDValidity), nil
	}
	for pk, sec := range sections {
		raw := buf[0].FindBodySection(sec)
		if raw == nil {
			continue
		}
		s, err := decodePart(bytes.NewReader(raw), pk.mediaTyp, pk.part.Params["charset"], pk.part.Encoding)
		if err != nil {
			body.Broken = true
		}
		if pk == html {
			body.HTML = s
		} else {
			body.Text = s
		}
	}
	it, _ := headerItem(h, body, p.InternalDate)
	return it, nil
}

// deadlineConn holds every deadline set on a connection to a hard one: the IMAP client sets its
// own read timeouts (30 s to 5 min), which must not outlast the fetch's.
type deadlineConn struct {
	net.Conn
	hard time.Time
}

func (c *deadlineConn) clamp(t time.Time) time.Time {
	if t.IsZero() || t.After(c.hard) {
		return c.hard
	}
	return t
}

func (c *deadlineConn) SetDeadline(t time.Time) error     { return c.Conn.SetDeadline(c.clamp(t)) }
func (c *deadlineConn) SetReadDeadline(t time.Time) error { return c.Conn.SetReadDeadline(c.clamp(t)) }
func (c *deadlineConn) SetWriteDeadline(t time.Time) error {
	return c.Conn.SetWriteDeadline(c.clamp(t))
}
