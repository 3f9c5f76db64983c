package views

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/greader"
)

// The Google Reader API, the subset that NetNewsWire, Reeder, Read You, FeedMe and newsboat
// use, under GReaderPrefix (docs/READER-API.md says how to connect each app). This file is its
// HTTP: routes, sign-in, parameters and the JSON answers; its rules (streams, labels, the
// continuation, filters) are greader.Reader's. It has its own authentication: accounts/ClientLogin
// answers a token that the apps send back as "Authorization: GoogleLogin auth=TOKEN"; a
// session cookie is never accepted, so the write token T that Google Reader used against
// cross-site requests is not needed and not checked.

// GReaderPrefix is where the Reader API is mounted; "/api/greader.php" (FreshRSS's address) works too.
const GReaderPrefix = "/api/greader"

const (
	greaderMaxN      = 10000 // stream/items/ids
	greaderMaxItems  = 1000  // stream/contents, stream/items/contents
	greaderMaxEdit   = 1000  // item ids in one edit-tag
	greaderMaxFormSz = 4 << 20
)

// greaderError is an answer of the Reader API other than 200: a status and a sentence.
type greaderError struct {
	status int
	msg    string
}

func (e *greaderError) Error() string { return e.msg }

// greaderRoute sends the Reader API's requests to it, ahead of the app's sign-in (which it
// does itself), and everything else on to next.
func (s *Server) greaderRoute(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		for _, prefix := range []string{GReaderPrefix + ".php", GReaderPrefix} {
			if rest, ok := strings.CutPrefix(p, prefix); ok && (rest == "" || rest[0] == '/') {
				s.greader(w, r, prefix)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// greaderRequest is one request to the Reader API.
type greaderRequest struct {
	r      *http.Request
	user   *app.User
	params url.Values // query and form
	path   string     // after the prefix, leading slashes collapsed: "/reader/api/0/…"
	base   string     // the prefix as mounted
	// streamsAsFeeds lists the starred and Top stories streams as subscriptions (the
	// address for newsboat).
	streamsAsFeeds bool
}

func (s *Server) greader(w http.ResponseWriter, r *http.Request, prefix string) {
	// An app may be given the base address with a trailing slash and add its own ("…//accounts").
	escaped := strings.TrimPrefix(r.URL.EscapedPath(), prefix)
	escaped = "/" + strings.TrimLeft(escaped, "/")
	if s.opts.Reader == nil {
		greaderText(w, http.StatusNotFound, "The Reader API is not available on this server.")
		return
	}
	if r.Method == http.MethodPost {
		r.Body = http.MaxBytesReader(w, r.Body, greaderMaxFormSz)
	}
	if err := r.ParseForm(); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			greaderText(w, http.StatusRequestEntityTooLarge, "The request body is too large: at most 4 MiB.")
			return
		}
		greaderText(w, http.StatusBadRequest, "The request's parameters are not valid form encoding (or there are more than 10,000 of them).")
		return
	}
	req := &greaderRequest{r: r, params: r.Form, path: escaped, base: prefix}
	if rest, ok := strings.CutPrefix(escaped, "/newsboat/"); ok {
		// newsboat shows only what the subscription list holds (its own "special feeds" are
		// fixed to feedhq.org): under this address the list also holds Starred and Top stories.
		req.streamsAsFeeds, req.base = true, prefix+"/newsboat"
		escaped = "/" + strings.TrimLeft(rest, "/")
		req.path = escaped
	}
	if escaped == "/accounts/ClientLogin" {
		s.greaderLogin(w, req)
		return
	}
	u, ok := s.greaderAuth(w, r)
	if !ok {
		return
	}
	req.user = u
	noteUser(r, u)
	if s.opts.RequireLogin && s.apiLimit != nil {
		if wait, ok := s.apiLimit.allow("u"+strconv.FormatInt(u.ID, 10), time.Now()); !ok {
			retryAfter(w, wait)
			greaderText(w, http.StatusTooManyRequests, "Too many requests: slow down and try again in a moment.")
			return
		}
	}
	var err error
	switch ep, _ := strings.CutPrefix(escaped, "/reader/api/0/"); {
	case strings.HasPrefix(escaped, "/reader/atom/"):
		err = s.greaderAtom(w, req, strings.TrimPrefix(escaped, "/reader/atom"))
	case ep == escaped:
		err = &greaderError{http.StatusNotFound, fmt.Sprintf("No such Reader API endpoint: %s.", escaped)}
	case strings.HasPrefix(ep, "stream/contents"):
		err = s.greaderStreamContents(w, req, strings.TrimPrefix(ep, "stream/contents"))
	default:
		h, found := greaderEndpoints[ep]
		switch {
		case !found:
			err = &greaderError{http.StatusNotFound, fmt.Sprintf("No such Reader API endpoint: %s.", escaped)}
		case h.post && r.Method != http.MethodPost:
			w.Header().Set("Allow", http.MethodPost)
			err = &greaderError{http.StatusMethodNotAllowed, fmt.Sprintf("%s changes something: send it as a POST.", ep)}
		default:
			err = h.fn(s, w, req)
		}
	}
	if err != nil {
		s.greaderFail(w, r, err)
	}
}

type greaderEndpoint struct {
	post bool
	fn   func(*Server, http.ResponseWriter, *greaderRequest) error
}

var greaderEndpoints map[string]greaderEndpoint

func init() {
	greaderEndpoints = map[string]greaderEndpoint{
		"token":                 {false, (*Server).greaderToken},
		"user-info":             {false, (*Server).greaderUserInfo},
		"subscription/list":     {false, (*Server).greaderSubscriptions},
		"subscription/edit":     {true, (*Server).greaderEditSubscription},
		"subscription/quickadd": {true, (*Server).greaderQuickAdd},
		"tag/list":              {false, (*Server).greaderTags},
		"unread-count":          {false, (*Server).greaderUnreadCount},
		"stream/items/ids":      {false, (*Server).greaderItemIDs},
		"stream/items/contents": {false, (*Server).greaderItemContents},
		"edit-tag":              {true, (*Server).greaderEditTag},
		"mark-all-as-read":      {true, (*Server).greaderMarkAllRead},
		"rename-tag":            {true, (*Server).greaderRenameTag},
		"disable-tag":           {true, (*Server).greaderDisableTag},
	}
}

func greaderText(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, msg)
}

// greaderFail answers an error: a sentence as plain text, with the status its kind calls for.
func (s *Server) greaderFail(w http.ResponseWriter, r *http.Request, err error) {
	var ge *greaderError
	if errors.As(err, &ge) {
		greaderText(w, ge.status, ge.msg)
		return
	}
	status, msg, internal := failure(err) // the one mapping of errors, as for pages and JSON
	if internal {
		s.logFailure(r, "reader api request failed", err)
	}
	greaderText(w, status, msg)
}

// greaderLocalToken is the token ClientLogin answers in local mode, where any name and
// password are accepted (the server listens on this machine only, as for the rest of the app).
const greaderLocalToken = "local"

// greaderLogin is accounts/ClientLogin: Email and Passwd, as a form or in the query. The
// password is the account's password (the token answered is a session, which ends with a
// password change or after SessionLifetime) or an API token from the Account page (answered
// as the token itself; it lasts until revoked).
func (s *Server) greaderLogin(w http.ResponseWriter, req *greaderRequest) {
	r := req.r
	if r.Method != http.MethodPost && r.Method != http.MethodGet {
		w.Header().Set("Allow", "GET, POST")
		greaderText(w, http.StatusMethodNotAllowed, "Sign in with a POST of Email and Passwd.")
		return
	}
	name, pass := strings.TrimSpace(req.params.Get("Email")), req.params.Get("Passwd")
	if !s.opts.RequireLogin || s.opts.Accounts == nil {
		greaderLoginOK(w, greaderLocalToken)
		return
	}
	if wait, ok := s.loginLimit.allow("ip"+clientIP(r, s.opts.TrustedProxies), time.Now()); !ok {
		retryAfter(w, wait)
		greaderText(w, http.StatusTooManyRequests, "Error=TooManyRequests\nToo many sign-in attempts from here. Wait a minute and try again.\n")
		return
	}
	if name == "" || pass == "" {
		greaderText(w, http.StatusUnauthorized, "Error=BadAuthentication\nSend your user name as Email and your password or an API token as Passwd.\n")
		return
	}
	var token string
	if strings.HasPrefix(pass, "md_") {
		u, err := s.opts.Accounts.TokenUser(r.Context(), pass)
		if err == nil && !strings.EqualFold(u.Name, name) {
			err = app.Errorf(app.EUNAUTHORIZED, "wrong user")
		}
		if err != nil {
			if app.ErrorCode(err) != app.EUNAUTHORIZED {
				s.greaderFail(w, r, err)
				return
			}
			s.log.Warn("failed reader sign-in", "user", name, "ip", clientIP(r, s.opts.TrustedProxies))
			greaderText(w, http.StatusUnauthorized, "Error=BadAuthentication\nWrong user name or API token.\n")
			return
		}
		token = pass
		noteUser(r, u)
	} else {
		u, t, _, err := s.opts.Accounts.Login(r.Context(), name, pass)
		if err != nil {
			if app.ErrorCode(err) != app.EUNAUTHORIZED {
				s.greaderFail(w, r, err)
				return
			}
			s.log.Warn("failed reader sign-in", "user", name, "ip", clientIP(r, s.opts.TrustedProxies))
			greaderText(w, http.StatusUnauthorized, "Error=BadAuthentication\nWrong user name or password.\n")
			return
		}
		token = t
		noteUser(r, u)
	}
	greaderLoginOK(w, token)
}

func greaderLoginOK(w http.ResponseWriter, token string) {
	greaderText(w, http.StatusOK, "SID="+token+"\nLSID="+token+"\nAuth="+token+"\n")
}

// greaderAuth finds the request's user from "Authorization: GoogleLogin auth=TOKEN" (or
// "Bearer TOKEN"). In local mode every request is the local user's.
func (s *Server) greaderAuth(w http.ResponseWriter, r *http.Request) (*app.User, bool) {
	if !s.opts.RequireLogin || s.opts.Accounts == nil {
		return localUser, true
	}
	h := r.Header.Get("Authorization")
	token, ok := strings.CutPrefix(h, "GoogleLogin auth=")
	if !ok {
		token, ok = strings.CutPrefix(h, "Bearer ")
	}
	token = strings.TrimSpace(token)
	if !ok || token == "" {
		greaderUnauthorized(w, "Sign in first: POST Email and Passwd to accounts/ClientLogin, then send Authorization: GoogleLogin auth=TOKEN.")
		return nil, false
	}
	var u *app.User
	var err error
	if strings.HasPrefix(token, "md_") {
		u, err = s.opts.Accounts.TokenUser(r.Context(), token)
	} else {
		u, err = s.opts.Accounts.Session(r.Context(), token)
	}
	if err != nil {
		if app.ErrorCode(err) != app.EUNAUTHORIZED {
			s.greaderFail(w, r, err)
			return nil, false
		}
		greaderUnauthorized(w, "This sign-in has ended or was revoked: sign in again with accounts/ClientLogin.")
		return nil, false
	}
	return u, true
}

func greaderUnauthorized(w http.ResponseWriter, msg string) {
	w.Header().Set("WWW-Authenticate", `GoogleLogin realm="morningdeck"`)
	greaderText(w, http.StatusUnauthorized, msg)
}

// greaderToken is the write token T. The API authenticates every request by its header and
// never by a cookie, so T guards nothing here; it is answered for the apps that ask for it
// and not checked.
func (s *Server) greaderToken(w http.ResponseWriter, req *greaderRequest) error {
	sum := sha256.Sum256([]byte("greader-T:" + req.r.Header.Get("Authorization") + strconv.FormatInt(req.user.ID, 10)))
	greaderText(w, http.StatusOK, hex.EncodeToString(sum[:])[:57])
	return nil
}

func (s *Server) greaderUserInfo(w http.ResponseWriter, req *greaderRequest) error {
	id := strconv.FormatInt(req.user.ID, 10)
	var signup int64 // the local user (no sign-in) has no account and no sign-up time
	if !req.user.CreatedAt.IsZero() {
		signup = req.user.CreatedAt.Unix()
	}
	writeJSON(w, http.StatusOK, map[string]any{"userId": id, "userName": req.user.Name, "userProfileId": id, "userEmail": "",
		"isBloggerUser": false, "signupTimeSec": signup, "isMultiLoginEnabled": false})
	return nil
}

// greaderCategory is the folder of a subscription.
type greaderCategory struct {
	ID    string `json:"id"`
	Label string `json:"label"`
}

type greaderSubscription struct {
	ID         string            `json:"id"`
	Title      string            `json:"title"`
	Categories []greaderCategory `json:"categories"` // an array of objects, even when empty (NetNewsWire requires it)
	URL        string            `json:"url"`
	HTMLURL    string            `json:"htmlUrl"`
	IconURL    string            `json:"iconUrl"`
	SortID     string            `json:"sortid"`
	FirstItem  string            `json:"firstitemmsec"`
}

func sourceTitle(src *app.Source) string {
	if src.Name != "" {
		return src.Name
	}
	return src.URL
}

func (s *Server) greaderSubscriptions(w http.ResponseWriter, req *greaderRequest) error {
	srcs, err := s.opts.Sources.List(req.r.Context(), req.user.ID)
	if err != nil {
		return err
	}
	out := make([]greaderSubscription, 0, len(srcs))
	for _, src := range srcs {
		cats := []greaderCategory{}
		if src.Folder != "" {
			cats = append(cats, greaderCategory{ID: greader.FolderLabel(src.Folder), Label: src.Folder})
		}
		out = append(out, greaderSubscription{ID: "feed/" + src.URL, Title: sourceTitle(src), Categories: cats,
			URL: src.URL, HTMLURL: siteOf(src.URL), SortID: fmt.Sprintf("%08X", src.ID), FirstItem: strconv.FormatInt(src.CreatedAt.UnixMilli(), 10)})
	}
	if req.streamsAsFeeds {
		out = append(out,
			greaderSubscription{ID: greader.StateStarred, Title: "Starred", Categories: []greaderCategory{}, SortID: "FFFFFFFE"},
			greaderSubscription{ID: greader.TopLabel, Title: greader.TopStories, Categories: []greaderCategory{}, SortID: "FFFFFFFF"})
	}
	writeJSON(w, http.StatusOK, map[string]any{"subscriptions": out})
	return nil
}

// siteOf is the home page of a feed's address: scheme and host.
func siteOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return raw
	}
	return u.Scheme + "://" + u.Host + "/"
}

// greaderEditSubscription is subscription/edit: ac=subscribe, unsubscribe or edit, for one or
// more s=feed/ADDRESS; t= renames (or names a new subscription); a=user/-/label/NAME puts it in
// that folder (made when new), r=user/-/label/NAME takes it out of that folder.
func (s *Server) greaderEditSubscription(w http.ResponseWriter, req *greaderRequest) error {
	p := req.params
	err := s.opts.Reader.EditSubscriptions(req.r.Context(), req.user.ID,
		greader.SubscriptionEdit{Action: p.Get("ac"), Streams: p["s"], Title: p.Get("t"), Add: p["a"], Remove: p["r"]})
	if err != nil {
		return err
	}
	greaderText(w, http.StatusOK, "OK")
	return nil
}

// greaderQuickAdd is subscription/quickadd: quickadd=ADDRESS (or feed/ADDRESS), found and
// followed as the Sources page would.
func (s *Server) greaderQuickAdd(w http.ResponseWriter, req *greaderRequest) error {
	raw := strings.TrimSpace(req.params.Get("quickadd"))
	if u, ok := greader.FeedStreamURL(raw); raw == "" || ok && strings.TrimSpace(u) == "" {
		return app.Errorf(app.EINVALID, "Say what to follow with quickadd=ADDRESS.")
	}
	src, err := s.opts.Reader.Follow(req.r.Context(), req.user.ID, raw, "")
	if err != nil {
		if code := app.ErrorCode(err); code == app.EINVALID || code == app.ENOTFOUND {
			writeJSON(w, http.StatusOK, map[string]any{"query": raw, "numResults": 0, "error": app.ErrorMessage(err)})
			return nil
		}
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"query": raw, "numResults": 1, "streamId": "feed/" + src.URL, "streamName": sourceTitle(src)})
	return nil
}

func (s *Server) greaderTags(w http.ResponseWriter, req *greaderRequest) error {
	labels, err := s.opts.Reader.Labels(req.r.Context(), req.user.ID)
	if err != nil {
		return err
	}
	tags := make([]map[string]string, 0, len(labels))
	for _, l := range labels {
		tag := map[string]string{"id": l.ID}
		if l.Type != "" {
			tag["type"] = l.Type
		}
		tags = append(tags, tag)
	}
	writeJSON(w, http.StatusOK, map[string]any{"tags": tags})
	return nil
}

// usec is a time in microseconds since 1970; the zero time is "0".
func usec(t time.Time) string {
	if t.IsZero() {
		return "0"
	}
	return strconv.FormatInt(t.UnixMicro(), 10)
}

func (s *Server) greaderUnreadCount(w http.ResponseWriter, req *greaderRequest) error {
	counts, total, err := s.opts.Reader.UnreadCounts(req.r.Context(), req.user.ID)
	if err != nil {
		return err
	}
	type count struct {
		ID     string `json:"id"`
		Count  int    `json:"count"`
		Newest string `json:"newestItemTimestampUsec"`
	}
	out := make([]count, 0, len(counts))
	for _, c := range counts {
		out = append(out, count{c.Stream, c.Count, usec(c.Newest)})
	}
	writeJSON(w, http.StatusOK, map[string]any{"max": total, "unreadcounts": out})
	return nil
}

// stream reads the stream named (or s=) and the request's filters: xt, it, n, ot, nt, r, c.
func (s *Server) stream(req *greaderRequest, stream string, defaultN, maxN int) (*greader.Stream, error) {
	p := req.params
	return s.opts.Reader.Stream(req.r.Context(), req.user.ID, greader.StreamRequest{Stream: stream, Exclude: p["xt"], Include: p["it"],
		N: p.Get("n"), OT: p.Get("ot"), NT: p.Get("nt"), Order: p.Get("r"), Continuation: p.Get("c")}, defaultN, maxN)
}

func (s *Server) greaderItemIDs(w http.ResponseWriter, req *greaderRequest) error {
	if req.params.Get("s") == "" {
		return app.Errorf(app.EINVALID, "Say which stream with s=, e.g. s=%s.", greader.StateReadingList)
	}
	q, err := s.stream(req, req.params.Get("s"), 20, greaderMaxN)
	if err != nil {
		return err
	}
	items, c, err := s.opts.Reader.Refs(req.r.Context(), req.user.ID, q)
	if err != nil {
		return err
	}
	type ref struct {
		ID        string   `json:"id"`
		Direct    []string `json:"directStreamIds"`
		Timestamp string   `json:"timestampUsec"`
	}
	out := make([]ref, 0, len(items))
	for _, it := range items {
		out = append(out, ref{strconv.FormatInt(it.ID, 10), []string{}, usec(greader.SortTime(it))})
	}
	body := map[string]any{"itemRefs": out}
	if c != "" {
		body["continuation"] = c
	}
	writeJSON(w, http.StatusOK, body)
	return nil
}

type greaderLink struct {
	Href string `json:"href"`
	Type string `json:"type,omitempty"`
}

type greaderItem struct {
	ID            string        `json:"id"`
	CrawlTimeMsec string        `json:"crawlTimeMsec"`
	TimestampUsec string        `json:"timestampUsec"`
	Published     int64         `json:"published"`
	Updated       int64         `json:"updated"`
	Title         string        `json:"title"`
	Canonical     []greaderLink `json:"canonical"`
	Alternate     []greaderLink `json:"alternate"`
	Categories    []string      `json:"categories"`
	Origin        struct {
		StreamID string `json:"streamId"`
		Title    string `json:"title"`
		HTMLURL  string `json:"htmlUrl"`
	} `json:"origin"`
	Summary struct {
		Direction string `json:"direction"`
		Content   string `json:"content"`
	} `json:"summary"`
	Author string `json:"author,omitempty"`
}

// greaderItems are items as the API answers them.
func greaderItems(items []greader.Item) []greaderItem {
	out := make([]greaderItem, 0, len(items))
	for _, it := range items {
		at := greader.SortTime(it.Item)
		g := greaderItem{ID: greader.LongItemID(it.ID), CrawlTimeMsec: strconv.FormatInt(it.CreatedAt.UnixMilli(), 10),
			TimestampUsec: usec(at), Published: at.Unix(), Updated: at.Unix(), Title: it.Title,
			Canonical: []greaderLink{}, Alternate: []greaderLink{}, Categories: it.Categories, Author: it.Author}
		if it.Link != "" {
			g.Canonical = []greaderLink{{Href: it.Link}}
			g.Alternate = []greaderLink{{Href: it.Link, Type: "text/html"}}
		}
		g.Origin.StreamID, g.Origin.Title, g.Origin.HTMLURL = "feed/"+it.FeedURL, it.SourceName, siteOf(it.FeedURL)
		g.Summary.Direction, g.Summary.Content = "ltr", it.CleanContent // sanitized when stored
		out = append(out, g)
	}
	return out
}

func (s *Server) greaderItemContents(w http.ResponseWriter, req *greaderRequest) error {
	ids, err := greader.ParseItemIDs(req.params["i"], greaderMaxItems)
	if err != nil {
		return err
	}
	items, err := s.opts.Reader.Items(req.r.Context(), req.user.ID, ids)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": greader.StateReadingList, "updated": time.Now().Unix(), "items": greaderItems(items)})
	return nil
}

// greaderStream reads a stream's page of whole items (at most greaderMaxItems, 20 by default)
// and the continuation to the next page: stream/contents and the Atom streams share it.
func (s *Server) greaderStream(req *greaderRequest, stream string) (*greader.Stream, []greaderItem, string, error) {
	q, err := s.stream(req, stream, 20, greaderMaxItems)
	if err != nil {
		return nil, nil, "", err
	}
	items, c, err := s.opts.Reader.Contents(req.r.Context(), req.user.ID, q)
	return q, greaderItems(items), c, err
}

// greaderStreamContents is stream/contents/STREAM (the stream id in the path, escaped or
// not) or stream/contents?s=STREAM.
func (s *Server) greaderStreamContents(w http.ResponseWriter, req *greaderRequest, rest string) error {
	stream, err := url.PathUnescape(strings.TrimPrefix(rest, "/"))
	if err != nil {
		return app.Errorf(app.EINVALID, "The stream in the address is not valid percent-encoding.")
	}
	if stream == "" {
		stream = req.params.Get("s")
	}
	q, items, c, err := s.greaderStream(req, stream)
	if err != nil {
		return err
	}
	body := map[string]any{"id": q.ID, "updated": time.Now().Unix(), "items": items}
	if c != "" {
		body["continuation"] = c
	}
	writeJSON(w, http.StatusOK, body)
	return nil
}

// greaderEditTag is edit-tag: a= adds and r= removes the read and starred states of the items
// i= (greader.Reader.EditTags).
func (s *Server) greaderEditTag(w http.ResponseWriter, req *greaderRequest) error {
	ids, err := greader.ParseItemIDs(req.params["i"], greaderMaxEdit)
	if err != nil {
		return err
	}
	if err := s.opts.Reader.EditTags(req.r.Context(), req.user.ID, ids, req.params["a"], req.params["r"]); err != nil {
		return err
	}
	greaderText(w, http.StatusOK, "OK")
	return nil
}

// greaderMarkAllRead is mark-all-as-read: s= a stream (a feed, a folder's label, a state),
// ts= (microseconds since 1970) marks only the items fetched by then, so an app does not mark
// read what it has not shown yet.
func (s *Server) greaderMarkAllRead(w http.ResponseWriter, req *greaderRequest) error {
	stream := req.params.Get("s")
	if stream == "" {
		return app.Errorf(app.EINVALID, "Say which stream to mark read with s=, e.g. s=%s.", greader.StateReadingList)
	}
	q, err := s.stream(req, stream, 1, 1)
	if err != nil {
		return err
	}
	var before time.Time
	if v := req.params.Get("ts"); v != "" {
		us, err := strconv.ParseInt(v, 10, 64)
		if err != nil || us < 0 {
			return app.Errorf(app.EINVALID, "ts must be a time in microseconds since 1970.")
		}
		before = time.UnixMicro(us)
	}
	if err := s.opts.Reader.MarkAllRead(req.r.Context(), req.user.ID, q, before); err != nil {
		return err
	}
	greaderText(w, http.StatusOK, "OK")
	return nil
}

// greaderRenameTag is rename-tag: s=user/-/label/OLD dest=user/-/label/NEW renames a folder.
func (s *Server) greaderRenameTag(w http.ResponseWriter, req *greaderRequest) error {
	if err := s.opts.Reader.RenameLabel(req.r.Context(), req.user.ID, req.params.Get("s"), req.params.Get("dest")); err != nil {
		return err
	}
	greaderText(w, http.StatusOK, "OK")
	return nil
}

// greaderDisableTag is disable-tag: s=user/-/label/NAME removes a folder; its sources stay.
func (s *Server) greaderDisableTag(w http.ResponseWriter, req *greaderRequest) error {
	if err := s.opts.Reader.DeleteLabel(req.r.Context(), req.user.ID, req.params.Get("s")); err != nil {
		return err
	}
	greaderText(w, http.StatusOK, "OK")
	return nil
}
