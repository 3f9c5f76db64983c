package feeds

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"html"
	"io"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/emersion/go-message"
	_ "github.com/emersion/go-message/charset" // legacy charsets (ISO-8859-*, Windows-125x, …) for message.CharsetReader
	"github.com/emersion/go-message/mail"
	"github.com/emersion/go-message/textproto"
	xhtml "golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/morningdeck/morningdeck/app"
)

// Bounds of a mail message read as an item: hostile mail is bounded like hostile feeds.
const (
	// maxMailDepth is how deep multiparts may nest; deeper parts are not read.
	maxMailDepth = 8
	// maxMailParts is how many parts of one message are looked at.
	maxMailParts = 100
	// maxMailHeaderBytes bounds a message's header block.
	maxMailHeaderBytes = 256 << 10
	// maxMailPartBytes bounds the text or HTML part read (after decoding); a larger part is cut.
	maxMailPartBytes = MaxContentBytes
)

// mailBody is what a message's item is made of: its header and its HTML and text parts.
type mailBody struct {
	HTML, Text string
	// Skipped counts the parts left unread: attachments, parts nested too deep, parts too large.
	Skipped int
	// Broken: the MIME structure could not be read whole; what was read is used.
	Broken bool
}

// MailItem turns one whole message (RFC 5322, as BODY[] returns it) into an item; received is
// the server's date for it (INTERNALDATE), used when the message has no readable Date. It
// fails only when not even a header can be read.
func MailItem(r io.Reader, received time.Time) (app.Item, error) {
	lr := &limitReader{r: io.LimitReader(r, maxWholeMessage), n: maxMailHeaderBytes}
	br := bufio.NewReader(lr)
	h, err := textproto.ReadHeader(br)
	if err != nil {
		return app.Item{}, errors.New("the message's header cannot be read")
	}
	lr.n = maxWholeMessage
	var body mailBody
	ent, err := message.New(message.Header{Header: h}, br)
	if ent == nil {
		body.Broken = true
	} else {
		if err != nil && !message.IsUnknownCharset(err) && !message.IsUnknownEncoding(err) {
			body.Broken = true
		}
		walkMail(ent, 0, &body)
	}
	return mailToItem(mail.Header{Header: message.Header{Header: h}}, body, received), nil
}

// noSubject is the title of a message without one; mailHashGUID begins the GUID of a message
// without a Message-ID (a hash of its sender, date and subject).
const (
	noSubject    = "(no subject)"
	mailHashGUID = "sha256:"
)

// maxWholeMessage is the most of a message MailItem reads; the IMAP reader fetches a larger
// message's text parts alone (imap.go).
const maxWholeMessage = 4 << 20

type limitReader struct {
	r io.Reader
	n int64
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, errors.New("header too large")
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	return n, err
}

// walkMail reads the first HTML and the first text part of an entity, in depth at most
// maxMailDepth; attachments are skipped (their bodies are never kept).
func walkMail(e *message.Entity, depth int, b *mailBody) {
	parts := 0
	var walk func(e *message.Entity, depth int)
	walk = func(e *message.Entity, depth int) {
		parts++
		if parts > maxMailParts {
			b.Skipped++
			return
		}
		if mr := e.MultipartReader(); mr != nil {
			if depth >= maxMailDepth {
				b.Skipped++
				return
			}
			for {
				p, err := mr.NextPart()
				if errors.Is(err, io.EOF) {
					return
				}
				if err != nil {
					if message.IsUnknownCharset(err) || message.IsUnknownEncoding(err) {
						if p != nil {
							walk(p, depth+1)
						}
						continue
					}
					b.Broken = true
					return
				}
				walk(p, depth+1)
				if parts > maxMailParts {
					return
				}
			}
		}
		mt, _, _ := e.Header.ContentType()
		if mt == "" {
			mt = "text/plain"
		}
		disp, _, _ := e.Header.ContentDisposition()
		if disp == "attachment" || (mt != "text/html" && mt != "text/plain") {
			b.Skipped++
			return
		}
		if (mt == "text/html" && b.HTML != "") || (mt == "text/plain" && b.Text != "") {
			return
		}
		s, err := readPart(e.Body)
		if err != nil {
			b.Broken = true
		}
		if mt == "text/html" {
			b.HTML = s
		} else {
			b.Text = s
		}
	}
	walk(e, depth)
}

// readPart reads at most maxMailPartBytes of a decoded part as UTF-8 text.
func readPart(r io.Reader) (string, error) {
	var buf bytes.Buffer
	_, err := io.Copy(&buf, io.LimitReader(r, maxMailPartBytes))
	return strings.ToValidUTF8(buf.String(), "\uFFFD"), err
}

// decodePart decodes a part fetched alone (its bytes as sent) with the transfer encoding and
// charset its BODYSTRUCTURE gave.
func decodePart(raw io.Reader, mediaType, charset, encoding string) (string, error) {
	var h message.Header
	params := map[string]string{}
	if charset != "" {
		params["charset"] = charset
	}
	h.SetContentType(mediaType, params)
	if encoding != "" {
		h.Set("Content-Transfer-Encoding", encoding)
	}
	ent, err := message.New(h, raw)
	if ent == nil {
		return "", err
	}
	return readPart(ent.Body)
}

// mailToItem makes the item of a message: its subject the title, its sender's name the author
// (the sender's address its "site", app.ExtraSender), its HTML part sanitized (tracking pixels
// and hidden text removed) or its text part, its Date (or when the server received it), its
// Message-ID the GUID, and its List-Unsubscribe link.
func mailToItem(h mail.Header, body mailBody, received time.Time) app.Item {
	it := app.Item{Extra: map[string]any{}}
	subject, err := h.Subject()
	if err != nil {
		subject = h.Get("Subject")
	}
	it.Title = app.Shorten(collapseSpace(subject), maxTitleRunes)
	if it.Title == "" {
		it.Title = noSubject
	}
	var sender string
	if from, err := h.AddressList("From"); err == nil && len(from) > 0 {
		sender = strings.ToLower(from[0].Address)
		it.Author = app.Shorten(collapseSpace(from[0].Name), maxAuthorRunes)
		if it.Author == "" {
			it.Author = sender
		}
	} else if raw := collapseSpace(h.Get("From")); raw != "" {
		it.Author = app.Shorten(raw, maxAuthorRunes)
	}
	if sender != "" {
		it.Extra[app.ExtraSender] = sender
	}
	if d, err := h.Date(); err == nil && !d.IsZero() && d.Year() > 1970 {
		it.PublishedAt = &d
	} else if !received.IsZero() {
		it.PublishedAt = &received
	} else {
		it.Extra[app.ExtraDateMissing] = true
	}
	id, err := h.MessageID()
	if err != nil || id == "" {
		id = strings.Trim(strings.TrimSpace(h.Get("Message-Id")), "<>")
	}
	if id == "" {
		sum := sha256.Sum256([]byte(sender + "\x00" + h.Get("Date") + "\x00" + subject))
		id = mailHashGUID + hex.EncodeToString(sum[:])
	}
	it.GUID = boundGUID(id)
	if u := unsubscribeLink(h.Get("List-Unsubscribe")); u != "" {
		it.Extra[app.ExtraUnsubscribe] = u
	}
	var content string
	switch {
	case strings.TrimSpace(body.HTML) != "":
		var online string
		content, online = cleanMailHTML(body.HTML)
		it.Link = online
	case strings.TrimSpace(body.Text) != "":
		content = Sanitize(textToHTML(body.Text), "")
	}
	it.CleanContent = truncateUTF8(content, MaxContentBytes)
	it.SetTextOfContent()
	if it.Text == "" && (body.Broken || body.Skipped > 0) {
		it.Text = "This message has no text we can show."
	}
	if len(it.Extra) == 0 {
		it.Extra = nil
	}
	return it
}

// unsubscribeLink picks the https (else http, else mailto) link of a List-Unsubscribe header
// (RFC 2369: "<mailto:…>, <https://…>").
func unsubscribeLink(v string) string {
	var mailto string
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		if !strings.HasPrefix(part, "<") || !strings.HasSuffix(part, ">") {
			continue
		}
		u, err := url.Parse(strings.TrimSpace(part[1 : len(part)-1]))
		if err != nil {
			continue
		}
		switch u.Scheme {
		case "https", "http":
			if u.Host != "" && !badHost(u.Host) && len(u.String()) <= maxURLBytes {
				return u.String()
			}
		case "mailto":
			if mailto == "" && u.Opaque != "" && len(u.String()) <= maxURLBytes {
				mailto = u.String()
			}
		}
	}
	return mailto
}

var urlInText = regexp.MustCompile(`https?://[^\s<>"'()\[\]]+[^\s<>"'()\[\].,;:!?]`)

// textToHTML makes HTML of a text part: paragraphs at blank lines, line breaks kept, web
// addresses made links (Sanitize then adds rel and target as to any link).
func textToHTML(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	var b strings.Builder
	for _, para := range regexp.MustCompile(`\n\s*\n`).Split(s, -1) {
		para = strings.TrimSpace(para)
		if para == "" {
			continue
		}
		b.WriteString("<p>")
		for i, line := range strings.Split(para, "\n") {
			if i > 0 {
				b.WriteString("<br>")
			}
			last := 0
			for _, m := range urlInText.FindAllStringIndex(line, -1) {
				b.WriteString(html.EscapeString(line[last:m[0]]))
				u := line[m[0]:m[1]]
				b.WriteString(`<a href="` + html.EscapeString(u) + `">` + html.EscapeString(u) + `</a>`)
				last = m[1]
			}
			b.WriteString(html.EscapeString(line[last:]))
		}
		b.WriteString("</p>\n")
	}
	return b.String()
}

// cleanMailHTML sanitizes a newsletter's HTML as any feed's content (Sanitize), after taking
// out what is there to watch the reader or is not meant to be seen: tracking pixels (images of
// one pixel or none, or hidden), images of the message itself (cid:, not shown here), hidden
// elements (a preheader's text), and forms with their buttons. It also returns the "view it in
// your browser" link, if the newsletter has one, as the item's link (taken out of the text).
func cleanMailHTML(s string) (clean, online string) {
	doc, err := xhtml.Parse(strings.NewReader(s))
	if err != nil {
		return Sanitize(s, ""), ""
	}
	var remove []*xhtml.Node
	var walk func(n *xhtml.Node, depth int)
	walk = func(n *xhtml.Node, depth int) {
		if depth > 512 {
			remove = append(remove, n)
			return
		}
		if n.Type == xhtml.ElementNode {
			style := strings.ToLower(strings.ReplaceAll(attr(n, "style"), " ", ""))
			hidden := strings.Contains(style, "display:none") || strings.Contains(style, "visibility:hidden") || strings.Contains(style, "mso-hide:all") ||
				strings.Contains(style, "max-height:0") && strings.Contains(style, "overflow:hidden")
			if hidden && n.DataAtom != atom.Html && n.DataAtom != atom.Body {
				remove = append(remove, n)
				return
			}
			if n.DataAtom == atom.Img && (trackingPixel(n, style) || strings.HasPrefix(strings.ToLower(strings.TrimSpace(attr(n, "src"))), "cid:")) {
				remove = append(remove, n)
				return
			}
			// A form (a survey, a sign-up) and its buttons have nothing to do outside the mail.
			if n.DataAtom == atom.Form || n.DataAtom == atom.Button {
				remove = append(remove, n)
				return
			}
			if n.DataAtom == atom.A && online == "" {
				text := strings.ToLower(collapseSpace(textOf(n)))
				if strings.Contains(text, "view in browser") || strings.Contains(text, "view in your browser") || strings.Contains(text, "view online") ||
					strings.Contains(text, "read online") || strings.Contains(text, "view this email") || strings.Contains(text, "read in browser") {
					if online = absoluteHTTP(nil, attr(n, "href")); online != "" {
						// It is the item's link ("Read the original"): not a line of the text.
						remove = append(remove, n)
						return
					}
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, depth+1)
		}
	}
	walk(doc, 0)
	for _, n := range remove {
		if n.Parent != nil {
			n.Parent.RemoveChild(n)
		}
	}
	body := findBody(doc)
	if body == nil {
		return "", online
	}
	var buf bytes.Buffer
	for c := body.FirstChild; c != nil; c = c.NextSibling {
		if err := xhtml.Render(&buf, c); err != nil {
			break
		}
	}
	return Sanitize(buf.String(), ""), online
}

func findBody(n *xhtml.Node) *xhtml.Node {
	if n.Type == xhtml.ElementNode && n.DataAtom == atom.Body {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if b := findBody(c); b != nil {
			return b
		}
	}
	return nil
}

var cssSize = regexp.MustCompile(`(?:^|;)(width|height):(\d+(?:\.\d+)?)px`)

// trackingPixel reports whether an image is a tracking pixel: at most one pixel wide or high
// by its attributes or style.
func trackingPixel(n *xhtml.Node, style string) bool {
	for _, k := range []string{"width", "height"} {
		v := strings.TrimSuffix(strings.TrimSpace(attr(n, k)), "px")
		if f, err := strconv.ParseFloat(v, 64); err == nil && f <= 1 {
			return true
		}
	}
	for _, m := range cssSize.FindAllStringSubmatch(style, -1) {
		if f, err := strconv.ParseFloat(m[2], 64); err == nil && f <= 1 {
			return true
		}
	}
	return false
}

// headerItem is mailToItem for a header read on its own.
func headerItem(h textproto.Header, body mailBody, received time.Time) (app.Item, error) {
	return mailToItem(mail.Header{Header: message.Header{Header: h}}, body, received), nil
}

func bufioReader(b []byte) *bufio.Reader {
	return bufio.NewReader(&limitReader{r: bytes.NewReader(b), n: maxMailHeaderBytes})
}
