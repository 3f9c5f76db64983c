package views

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

// The Google Reader API, the subset that NetNewsWire, Reeder, Read You, FeedMe and newsboat
// use, under GReaderPrefix (docs/READER-API.md says how to connect each app). It has its own
// authentication: accounts/ClientLogin answers a token that the apps send back as
// "Authorization: GoogleLogin auth=TOKEN"; a session cookie is never accepted, so the write
// token T that Google Reader used against cross-site requests is not needed and not checked.
//
// Ids: an item is "tag:google.com,2005:reader/item/%016x" (its id in hex) in the long form and
// its decimal id in the short form; both are accepted. A source is the stream "feed/" + its
// address. States are user/-/state/com.google/{reading-list,read,starred}; the score is the
// label user/-/label/Top stories (items scoring at least greaderTopScore).
//
// Folders are labels: user/-/label/NAME is the stream of a folder's sources, a subscription's
// categories hold its folder, subscription/edit a=/r= move a source in and out of folders, and
// rename-tag/disable-tag rename and remove a folder.

// GReaderPrefix is where the Reader API is mounted; "/api/greader.php" (FreshRSS's address) works too.
const GReaderPrefix = "/api/greader"

const (
	greaderTopScore  = 70
	greaderTopLabel  = "Top stories"
	greaderMaxN      = 10000 // stream/items/ids
	greaderMaxItems  = 1000  // stream/contents, stream/items/contents
	greaderMaxEdit   = 1000  // item ids in one edit-tag
	greaderMaxFormSz = 4 << 20
	stateReadingList = "user/-/state/com.google/reading-list"
	stateRead        = "user/-/state/com.google/read"
	stateStarred     = "user/-/state/com.google/starred"
	itemIDPrefix     = "tag:google.com,2005:reader/item/"
)

// greaderStore is the data access the Reader API needs beyond the item and source stores
// (sqlite/greader.go implements it on the database).
type greaderStore interface {
	GReaderRefs(ctx context.Context, userID, sourceID, folderID int64, readState, starState, minScore int,
		oldest, newest time.Time, oldestFirst bool, afterSort string, afterID int64, limit int) ([]*app.Item, []string, error)
	GReaderItems(ctx context.Context, userID int64, ids []int64) ([]*app.Item, error)
	GReaderSetState(ctx context.Context, userID int64, ids []int64, read, starred *bool) (int, error)
	GReaderMarkAllRead(ctx context.Context, userID, sourceID, folderID int64, minScore int, starredOnly bool, before time.Time) (int, error)
	GReaderUnreadCounts(ctx context.Context, userID int64, topScore int) (map[int64]int, map[int64]time.Time, int, error)
	GReaderSourceID(ctx context.Context, userID int64, url string) (int64, error)
}

// greaderError is an answer of the Reader API other than 200: a status and a sentence.
type greaderError struct {
	status int
	msg    string
}

func (e *greaderError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &greaderError{http.StatusBadRequest, fmt.Sprintf(format, args...)}
}

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
	store  greaderStore
	params url.Values // query and form
	path   string     // after the prefix, leading slashes collapsed: "/reader/api/0/…"
	base   string     // the prefix as mounted
	// streamsAsFeeds lists the starred and Top stories streams as subscriptions (the
	// address for newsboat).
	streamsAsFeeds bool
	sources        *app.Sources
}

func (s *Server) greader(w http.ResponseWriter, r *http.Request, prefix string) {
	// An app may be given the base address with a trailing slash and add its own ("…//accounts").
	escaped := strings.TrimPrefix(r.URL.EscapedPath(), prefix)
	escaped = "/" + strings.TrimLeft(escaped, "/")
	store := s.opts.ReaderAPI
	if store == nil || s.opts.Reading == nil {
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
	req := &greaderRequest{r: r, store: store, params: r.Form, path: escaped, base: prefix, sources: s.opts.Sources}
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
	if s.opts.RequireLogin && s.apiLimit != nil {
		if wait, ok := s.apiLimit.allow("u"+strconv.FormatInt(u.ID, 10), time.Now()); !ok {
			w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
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
	if wait, ok := s.loginLimit.allow("ip"+clientIP(r), time.Now()); !ok {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
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
			s.log.Warn("failed reader sign-in", "user", name, "ip", clientIP(r))
			greaderText(w, http.StatusUnauthorized, "Error=BadAuthentication\nWrong user name or API token.\n")
			return
		}
		token = pass
	} else {
		_, t, _, err := s.opts.Accounts.Login(r.Context(), name, pass)
		if err != nil {
			if app.ErrorCode(err) != app.EUNAUTHORIZED {
				s.greaderFail(w, r, err)
				return
			}
			s.log.Warn("failed reader sign-in", "user", name, "ip", clientIP(r))
			greaderText(w, http.StatusUnauthorized, "Error=BadAuthentication\nWrong user name or password.\n")
			return
		}
		token = t
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
	writeJSON(w, http.StatusOK, map[string]any{"userId": id, "userName": req.user.Name, "userProfileId": id, "userEmail": "",
		"isBloggerUser": false, "signupTimeSec": req.user.CreatedAt.Unix(), "isMultiLoginEnabled": false})
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
			cats = append(cats, greaderCategory{ID: folderLabel(src.Folder), Label: src.Folder})
		}
		out = append(out, greaderSubscription{ID: "feed/" + src.URL, Title: sourceTitle(src), Categories: cats,
			URL: src.URL, HTMLURL: siteOf(src.URL), SortID: fmt.Sprintf("%08X", src.ID), FirstItem: strconv.FormatInt(src.CreatedAt.UnixMilli(), 10)})
	}
	if req.streamsAsFeeds {
		out = append(out,
			greaderSubscription{ID: stateStarred, Title: "Starred", Categories: []greaderCategory{}, SortID: "FFFFFFFE"},
			greaderSubscription{ID: "user/-/label/" + greaderTopLabel, Title: greaderTopLabel, Categories: []greaderCategory{}, SortID: "FFFFFFFF"})
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

// feedURL takes the address out of a stream id "feed/ADDRESS".
func feedURL(stream string) (string, bool) {
	u, ok := strings.CutPrefix(strings.TrimSpace(stream), "feed/")
	return u, ok && u != ""
}

// greaderFollow follows a feed for the user; an address already followed is not an error.
func (s *Server) greaderFollow(ctx context.Context, userID int64, raw, title string) (*app.Source, error) {
	in := app.AddSource{UserID: userID, URL: raw, Name: title}
	if s.opts.Sources.Detector == nil {
		in.Type = app.SourceRSS
	}
	src, err := s.opts.Sources.Add(ctx, in)
	if app.ErrorCode(err) == app.ECONFLICT {
		if u, nerr := app.NormalizeURL(raw); nerr == nil {
			if id, ierr := s.greaderSourceByURL(ctx, userID, u); ierr == nil {
				return s.opts.Sources.Get(ctx, userID, id)
			}
		}
	}
	return src, err
}

func (s *Server) greaderSourceByURL(ctx context.Context, userID int64, u string) (int64, error) {
	store := s.opts.ReaderAPI
	return store.GReaderSourceID(ctx, userID, u)
}

// greaderEditSubscription is subscription/edit: ac=subscribe, unsubscribe or edit, for one or
// more s=feed/ADDRESS; t= renames (or names a new subscription); a=user/-/label/NAME puts it in
// that folder (made when new), r=user/-/label/NAME takes it out of that folder.
func (s *Server) greaderEditSubscription(w http.ResponseWriter, req *greaderRequest) error {
	ctx, uid := req.r.Context(), req.user.ID
	streams := req.params["s"]
	if len(streams) == 0 {
		return badRequest("Say which subscription with s=feed/ADDRESS.")
	}
	title := strings.TrimSpace(req.params.Get("t"))
	ac := req.params.Get("ac")
	for _, st := range streams {
		u, ok := feedURL(st)
		if !ok {
			return badRequest("%q is not a subscription: write it as feed/ADDRESS.", st)
		}
		switch ac {
		case "subscribe":
			src, err := s.greaderFollow(ctx, uid, u, title)
			if err != nil {
				return err
			}
			if err := req.moveByLabels(src.ID, src.Folder); err != nil {
				return err
			}
		case "unsubscribe":
			id, err := req.store.GReaderSourceID(ctx, uid, u)
			if err != nil {
				return err
			}
			if err := s.opts.Sources.Delete(ctx, uid, id); err != nil {
				return err
			}
		case "edit":
			id, err := req.store.GReaderSourceID(ctx, uid, u)
			if err != nil {
				return err
			}
			if title != "" {
				if _, err := s.opts.Sources.Update(ctx, uid, id, app.SourceUpdate{Name: &title}); err != nil {
					return err
				}
			}
			src, err := s.opts.Sources.Get(ctx, uid, id)
			if err != nil {
				return err
			}
			if err := req.moveByLabels(id, src.Folder); err != nil {
				return err
			}
		default:
			return badRequest("ac must be subscribe, unsubscribe or edit.")
		}
	}
	greaderText(w, http.StatusOK, "OK")
	return nil
}

// greaderQuickAdd is subscription/quickadd: quickadd=ADDRESS (or feed/ADDRESS), found and
// followed as the Sources page would.
func (s *Server) greaderQuickAdd(w http.ResponseWriter, req *greaderRequest) error {
	raw := strings.TrimSpace(req.params.Get("quickadd"))
	if u, ok := feedURL(raw); ok {
		raw = u
	}
	if raw == "" {
		return badRequest("Say what to follow with quickadd=ADDRESS.")
	}
	src, err := s.greaderFollow(req.r.Context(), req.user.ID, raw, "")
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
	tags := []map[string]string{
		{"id": stateStarred},
		{"id": stateRead},
		{"id": stateReadingList},
		{"id": "user/-/label/" + greaderTopLabel, "type": "tag"},
	}
	fs, err := s.opts.Sources.Folders(req.r.Context(), req.user.ID)
	if err != nil {
		return err
	}
	for _, f := range fs {
		tags = append(tags, map[string]string{"id": folderLabel(f.Name), "type": "folder"})
	}
	writeJSON(w, http.StatusOK, map[string]any{"tags": tags})
	return nil
}

func usec(t time.Time) string { return strconv.FormatInt(t.UnixMicro(), 10) }

func (s *Server) greaderUnreadCount(w http.ResponseWriter, req *greaderRequest) error {
	ctx := req.r.Context()
	counts, newest, top, err := req.store.GReaderUnreadCounts(ctx, req.user.ID, greaderTopScore)
	if err != nil {
		return err
	}
	srcs, err := s.opts.Sources.List(ctx, req.user.ID)
	if err != nil {
		return err
	}
	type count struct {
		ID     string `json:"id"`
		Count  int    `json:"count"`
		Newest string `json:"newestItemTimestampUsec"`
	}
	out := []count{}
	total := 0
	var latest time.Time
	type folderCount struct {
		n      int
		newest time.Time
	}
	folders := map[string]*folderCount{}
	var folderNames []string
	for _, src := range srcs {
		n := counts[src.ID]
		total += n
		at := newest[src.ID]
		if at.After(latest) {
			latest = at
		}
		if src.Folder != "" {
			fc := folders[src.Folder]
			if fc == nil {
				fc = &folderCount{}
				folders[src.Folder] = fc
				folderNames = append(folderNames, src.Folder)
			}
			fc.n += n
			if n > 0 && at.After(fc.newest) {
				fc.newest = at
			}
		}
		nu := "0"
		if n > 0 {
			nu = usec(at)
		}
		out = append(out, count{"feed/" + src.URL, n, nu})
	}
	lu := "0"
	if total > 0 {
		lu = usec(latest)
	}
	for _, name := range folderNames {
		fu := "0"
		if fc := folders[name]; fc.n > 0 {
			fu = usec(fc.newest)
		}
		out = append(out, count{folderLabel(name), folders[name].n, fu})
	}
	out = append(out, count{stateReadingList, total, lu}, count{"user/-/label/" + greaderTopLabel, top, lu})
	writeJSON(w, http.StatusOK, map[string]any{"max": total, "unreadcounts": out})
	return nil
}

// streamQuery is a stream with its filters: which items, in what order, from where.
type streamQuery struct {
	id          string // as asked, for the answer
	sourceID    int64
	folderID    int64 // a folder's sources (a label stream)
	readState   int   // 0 any, 1 unread, 2 read
	starState   int   // 0 any, 1 starred, 2 not starred
	minScore    int
	empty       bool // a label no item has: an empty stream
	oldest      time.Time
	newest      time.Time
	oldestFirst bool
	afterSort   string
	afterID     int64
	n           int
}

// applyTarget narrows q to the stream or state target; exclude turns it into its opposite.
func (req *greaderRequest) applyTarget(q *streamQuery, target string, exclude bool) error {
	t := normalizeTag(target)
	switch {
	case t == stateReadingList:
		if exclude {
			q.empty = true
		}
	case t == stateRead:
		q.readState = pick(exclude, 1, 2)
	case t == stateStarred:
		q.starState = pick(exclude, 2, 1)
	case t == "user/-/state/com.google/kept-unread" || t == "user/-/state/com.google/fresh":
		q.readState = pick(exclude, 2, 1)
	case t == "user/-/label/"+greaderTopLabel:
		if exclude {
			return badRequest("Excluding the %s label is not supported.", greaderTopLabel)
		}
		q.minScore = greaderTopScore
	case strings.HasPrefix(t, "user/-/label/"):
		f, err := req.folder(strings.TrimPrefix(t, "user/-/label/"))
		if err != nil {
			return err
		}
		if f == nil { // a label that is no folder holds no items
			if !exclude {
				q.empty = true
			}
			return nil
		}
		if exclude {
			return badRequest("Excluding a folder is not supported.")
		}
		if q.folderID != 0 && q.folderID != f.ID {
			q.empty = true
		}
		q.folderID = f.ID
	case strings.HasPrefix(t, "user/-/state/"):
		// Other states (broadcast, like…) hold no items.
		if !exclude {
			q.empty = true
		}
	case strings.HasPrefix(t, "feed/"):
		u, _ := feedURL(t)
		id, err := req.store.GReaderSourceID(req.r.Context(), req.user.ID, u)
		if app.ErrorCode(err) == app.ENOTFOUND {
			return &greaderError{http.StatusNotFound, fmt.Sprintf("No subscription %s: you do not follow %s.", t, u)}
		} else if err != nil {
			return err
		}
		if exclude {
			return badRequest("Excluding a subscription is not supported.")
		}
		if q.sourceID != 0 && q.sourceID != id {
			q.empty = true
		}
		q.sourceID = id
	default:
		return badRequest("Unknown stream %q: use feed/ADDRESS, user/-/state/com.google/reading-list, read or starred, or user/-/label/%s.", target, greaderTopLabel)
	}
	return nil
}

func pick(exclude bool, ifExcluded, ifIncluded int) int {
	if exclude {
		return ifExcluded
	}
	return ifIncluded
}

// normalizeTag writes "user/USERID/…" as "user/-/…".
func normalizeTag(t string) string {
	t = strings.TrimSpace(t)
	if rest, ok := strings.CutPrefix(t, "user/"); ok {
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			return "user/-" + rest[i:]
		}
	}
	return t
}

// parseStream reads a stream and its parameters: n, c, ot, nt, xt, it, r.
func (req *greaderRequest) parseStream(stream string, defaultN, maxN int) (*streamQuery, error) {
	p := req.params
	if stream == "" {
		stream = stateReadingList
	}
	q := &streamQuery{id: stream, n: defaultN}
	if err := req.applyTarget(q, stream, false); err != nil {
		return nil, err
	}
	for _, t := range p["xt"] {
		if err := req.applyTarget(q, t, true); err != nil {
			return nil, err
		}
	}
	for _, t := range p["it"] {
		if err := req.applyTarget(q, t, false); err != nil {
			return nil, err
		}
	}
	if v := p.Get("n"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return nil, badRequest("n must be a whole number of items, at least 1.")
		}
		q.n = min(n, maxN)
	}
	for _, tp := range []struct {
		name string
		dst  *time.Time
	}{{"ot", &q.oldest}, {"nt", &q.newest}} {
		if v := p.Get(tp.name); v != "" {
			sec, err := strconv.ParseInt(v, 10, 64)
			if err != nil || sec < 0 || sec > 1<<40 {
				return nil, badRequest("%s must be a time in seconds since 1970 (Unix time).", tp.name)
			}
			*tp.dst = time.Unix(sec, 0)
		}
	}
	switch p.Get("r") {
	case "", "n", "d":
	case "o":
		q.oldestFirst = true
	default:
		return nil, badRequest("r must be o (oldest first) or n (newest first).")
	}
	if c := p.Get("c"); c != "" {
		sortAt, id, ok := parseContinuation(c)
		if !ok {
			return nil, badRequest("The continuation token %q is not one this server gave.", truncate(c, 60))
		}
		q.afterSort, q.afterID = sortAt, id
	}
	return q, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// A continuation is where the previous page ended: the last item's sort time and id.
func continuation(sortAt string, id int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte(sortAt + "|" + strconv.FormatInt(id, 10)))
}

func parseContinuation(c string) (string, int64, bool) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return "", 0, false
	}
	sortAt, idStr, ok := strings.Cut(string(b), "|")
	if !ok {
		return "", 0, false
	}
	if _, err := time.Parse(time.RFC3339Nano, sortAt); err != nil {
		return "", 0, false
	}
	id, err := strconv.ParseInt(idStr, 10, 64)
	if err != nil || id < 1 {
		return "", 0, false
	}
	return sortAt, id, true
}

// refs runs a stream query: a page of items (the reference fields) and the continuation.
func (req *greaderRequest) refs(q *streamQuery) ([]*app.Item, string, error) {
	if q.empty {
		return nil, "", nil
	}
	items, sorts, err := req.store.GReaderRefs(req.r.Context(), req.user.ID, q.sourceID, q.folderID, q.readState, q.starState, q.minScore,
		q.oldest, q.newest, q.oldestFirst, q.afterSort, q.afterID, q.n+1)
	if err != nil {
		return nil, "", err
	}
	var c string
	if len(items) > q.n {
		items = items[:q.n]
		c = continuation(sorts[q.n-1], items[q.n-1].ID)
	}
	return items, c, nil
}

func sortTime(it *app.Item) time.Time {
	if it.PublishedAt != nil {
		return *it.PublishedAt
	}
	return it.CreatedAt
}

func (s *Server) greaderItemIDs(w http.ResponseWriter, req *greaderRequest) error {
	if req.params.Get("s") == "" {
		return badRequest("Say which stream with s=, e.g. s=%s.", stateReadingList)
	}
	q, err := req.parseStream(req.params.Get("s"), 20, greaderMaxN)
	if err != nil {
		return err
	}
	items, c, err := req.refs(q)
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
		out = append(out, ref{strconv.FormatInt(it.ID, 10), []string{}, usec(sortTime(it))})
	}
	body := map[string]any{"itemRefs": out}
	if c != "" {
		body["continuation"] = c
	}
	writeJSON(w, http.StatusOK, body)
	return nil
}

// parseItemID reads an item id in the long form (hex) or the short one (decimal).
func parseItemID(v string) (int64, bool) {
	v = strings.TrimSpace(v)
	if h, ok := strings.CutPrefix(v, itemIDPrefix); ok {
		n, err := strconv.ParseUint(h, 16, 64)
		return int64(n), err == nil && n > 0 && n <= math.MaxInt64
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil && n > 0
}

func (req *greaderRequest) itemIDs(max int) ([]int64, error) {
	raw := req.params["i"]
	if len(raw) == 0 {
		return nil, badRequest("Say which items with i=ID (one i= per item).")
	}
	if len(raw) > max {
		return nil, badRequest("At most %d items at once; got %d.", max, len(raw))
	}
	ids := make([]int64, 0, len(raw))
	for _, v := range raw {
		id, ok := parseItemID(v)
		if !ok {
			return nil, badRequest("%q is not an item id: use the decimal id or %s followed by 16 hex digits.", truncate(v, 60), itemIDPrefix)
		}
		ids = append(ids, id)
	}
	return ids, nil
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

func longItemID(id int64) string { return fmt.Sprintf("%s%016x", itemIDPrefix, id) }

func itemCategories(it *app.Item, folder string) []string {
	cats := []string{stateReadingList}
	if folder != "" {
		cats = append(cats, folderLabel(folder))
	}
	if it.ReadAt != nil {
		cats = append(cats, stateRead)
	}
	if it.Starred {
		cats = append(cats, stateStarred)
	}
	if it.Score != nil && *it.Score >= greaderTopScore {
		cats = append(cats, "user/-/label/"+greaderTopLabel)
	}
	return cats
}

// items answers whole items with the feed addresses of their sources.
func (s *Server) greaderItems(req *greaderRequest, ids []int64) ([]greaderItem, error) {
	ctx := req.r.Context()
	items, err := req.store.GReaderItems(ctx, req.user.ID, ids)
	if err != nil {
		return nil, err
	}
	urls, folders := map[int64]string{}, map[int64]string{}
	out := make([]greaderItem, 0, len(items))
	for _, it := range items {
		u, ok := urls[it.SourceID]
		if !ok {
			src, err := s.opts.Sources.Get(ctx, req.user.ID, it.SourceID)
			if err != nil {
				return nil, err
			}
			u, urls[it.SourceID], folders[it.SourceID] = src.URL, src.URL, src.Folder
		}
		g := greaderItem{ID: longItemID(it.ID), CrawlTimeMsec: strconv.FormatInt(it.CreatedAt.UnixMilli(), 10),
			TimestampUsec: usec(sortTime(it)), Published: sortTime(it).Unix(), Updated: sortTime(it).Unix(), Title: it.Title,
			Canonical: []greaderLink{}, Alternate: []greaderLink{}, Categories: itemCategories(it, folders[it.SourceID]), Author: it.Author}
		if it.Link != "" {
			g.Canonical = []greaderLink{{Href: it.Link}}
			g.Alternate = []greaderLink{{Href: it.Link, Type: "text/html"}}
		}
		g.Origin.StreamID, g.Origin.Title, g.Origin.HTMLURL = "feed/"+u, it.SourceName, siteOf(u)
		g.Summary.Direction, g.Summary.Content = "ltr", it.CleanContent // sanitized when stored
		out = append(out, g)
	}
	return out, nil
}

func (s *Server) greaderItemContents(w http.ResponseWriter, req *greaderRequest) error {
	ids, err := req.itemIDs(greaderMaxItems)
	if err != nil {
		return err
	}
	items, err := s.greaderItems(req, ids)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": stateReadingList, "updated": time.Now().Unix(), "items": items})
	return nil
}

// greaderStream reads a stream's page of whole items (at most greaderMaxItems, 20 by default)
// and the continuation to the next page: stream/contents and the Atom streams share it.
func (s *Server) greaderStream(req *greaderRequest, stream string) (*streamQuery, []greaderItem, string, error) {
	q, err := req.parseStream(stream, 20, greaderMaxItems)
	if err != nil {
		return nil, nil, "", err
	}
	refs, c, err := req.refs(q)
	if err != nil {
		return nil, nil, "", err
	}
	ids := make([]int64, 0, len(refs))
	for _, it := range refs {
		ids = append(ids, it.ID)
	}
	items, err := s.greaderItems(req, ids)
	return q, items, c, err
}

// greaderStreamContents is stream/contents/STREAM (the stream id in the path, escaped or
// not) or stream/contents?s=STREAM.
func (s *Server) greaderStreamContents(w http.ResponseWriter, req *greaderRequest, rest string) error {
	stream, err := url.PathUnescape(strings.TrimPrefix(rest, "/"))
	if err != nil {
		return badRequest("The stream in the address is not valid percent-encoding.")
	}
	if stream == "" {
		stream = req.params.Get("s")
	}
	q, items, c, err := s.greaderStream(req, stream)
	if err != nil {
		return err
	}
	body := map[string]any{"id": q.id, "updated": time.Now().Unix(), "items": items}
	if c != "" {
		body["continuation"] = c
	}
	writeJSON(w, http.StatusOK, body)
	return nil
}

// greaderEditTag is edit-tag: a= adds and r= removes the read and starred states of the items
// i=; other states (kept-unread, tracking-…, broadcast) and labels are accepted and ignored.
func (s *Server) greaderEditTag(w http.ResponseWriter, req *greaderRequest) error {
	ids, err := req.itemIDs(greaderMaxEdit)
	if err != nil {
		return err
	}
	var read, starred *bool
	yes, no := true, false
	for _, t := range req.params["a"] {
		switch normalizeTag(t) {
		case stateRead:
			read = &yes
		case stateStarred:
			starred = &yes
		case "user/-/state/com.google/kept-unread":
			if read == nil {
				read = &no
			}
		}
	}
	for _, t := range req.params["r"] {
		switch normalizeTag(t) {
		case stateRead:
			read = &no
		case stateStarred:
			starred = &no
		}
	}
	if _, err := req.store.GReaderSetState(req.r.Context(), req.user.ID, ids, read, starred); err != nil {
		return err
	}
	greaderText(w, http.StatusOK, "OK")
	return nil
}

// greaderMarkAllRead is mark-all-as-read: s= a stream, ts= (microseconds since 1970) marks only
// the items fetched by then, so an app does not mark read what it has not shown yet.
func (s *Server) greaderMarkAllRead(w http.ResponseWriter, req *greaderRequest) error {
	stream := req.params.Get("s")
	if stream == "" {
		return badRequest("Say which stream to mark read with s=, e.g. s=%s.", stateReadingList)
	}
	q, err := req.parseStream(stream, 1, 1)
	if err != nil {
		return err
	}
	var before time.Time
	if v := req.params.Get("ts"); v != "" {
		us, err := strconv.ParseInt(v, 10, 64)
		if err != nil || us < 0 {
			return badRequest("ts must be a time in microseconds since 1970.")
		}
		before = time.UnixMicro(us)
	}
	if !q.empty && q.readState != 2 {
		if _, err := req.store.GReaderMarkAllRead(req.r.Context(), req.user.ID, q.sourceID, q.folderID, q.minScore, q.starState == 1, before); err != nil {
			return err
		}
	}
	greaderText(w, http.StatusOK, "OK")
	return nil
}

// folderLabel is a folder's label stream id.
func folderLabel(name string) string { return "user/-/label/" + name }

// folder returns the user's folder called name (any case), or nil when there is none.
func (req *greaderRequest) folder(name string) (*app.Folder, error) {
	fs, err := req.sources.Folders(req.r.Context(), req.user.ID)
	if err != nil {
		return nil, err
	}
	for _, f := range fs {
		if strings.EqualFold(f.Name, strings.TrimSpace(name)) {
			return f, nil
		}
	}
	return nil, nil
}

// moveByLabels applies subscription/edit's a= (put in the folder) and r= (take out of the
// folder) to a source now in folder current. Labels that are not folders (states, Top
// stories) are ignored.
func (req *greaderRequest) moveByLabels(sourceID int64, current string) error {
	ctx, uid := req.r.Context(), req.user.ID
	for _, l := range req.params["r"] {
		name, ok := strings.CutPrefix(normalizeTag(l), "user/-/label/")
		if ok && current != "" && strings.EqualFold(strings.TrimSpace(name), current) {
			if _, err := req.sources.Move(ctx, uid, sourceID, ""); err != nil {
				return err
			}
			current = ""
		}
	}
	for _, l := range req.params["a"] {
		name, ok := strings.CutPrefix(normalizeTag(l), "user/-/label/")
		if !ok || strings.EqualFold(name, greaderTopLabel) {
			continue
		}
		if _, err := app.CleanFolderName(name); err != nil {
			return err
		}
		src, err := req.sources.Move(ctx, uid, sourceID, name)
		if err != nil {
			return err
		}
		current = src.Folder
	}
	return nil
}

// greaderRenameTag is rename-tag: s=user/-/label/OLD dest=user/-/label/NEW renames a folder.
func (s *Server) greaderRenameTag(w http.ResponseWriter, req *greaderRequest) error {
	from, ok1 := strings.CutPrefix(normalizeTag(req.params.Get("s")), "user/-/label/")
	to, ok2 := strings.CutPrefix(normalizeTag(req.params.Get("dest")), "user/-/label/")
	if !ok1 || !ok2 {
		return badRequest("Say which folder with s=user/-/label/NAME and its new name with dest=user/-/label/NEW-NAME.")
	}
	f, err := req.folder(from)
	if err != nil {
		return err
	}
	if f == nil {
		return &greaderError{http.StatusNotFound, fmt.Sprintf("No folder is called %q.", from)}
	}
	if _, err := s.opts.Sources.RenameFolder(req.r.Context(), req.user.ID, f.ID, to); err != nil {
		return err
	}
	greaderText(w, http.StatusOK, "OK")
	return nil
}

// greaderDisableTag is disable-tag: s=user/-/label/NAME removes a folder; its sources stay.
func (s *Server) greaderDisableTag(w http.ResponseWriter, req *greaderRequest) error {
	name, ok := strings.CutPrefix(normalizeTag(req.params.Get("s")), "user/-/label/")
	if !ok {
		return badRequest("Say which folder with s=user/-/label/NAME.")
	}
	f, err := req.folder(name)
	if err != nil {
		return err
	}
	if f != nil {
		if err := s.opts.Sources.DeleteFolder(req.r.Context(), req.user.ID, f.ID); err != nil {
			return err
		}
	}
	greaderText(w, http.StatusOK, "OK")
	return nil
}
