package greader

import (
	"context"
	"encoding/base64"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

// Reader is the service behind the Google Reader API (views/greader.go speaks its HTTP): the
// API's rules live here, the queries in the store (sqlite/greader.go).
//
// Streams: a source is "feed/" + its address; the states are user/-/state/com.google/
// {reading-list,read,starred}; a folder is the label user/-/label/NAME; the score is the label
// user/-/label/Top stories (items scoring at least TopScore). Items are
// "tag:google.com,2005:reader/item/%016x" (the id in hex) in the long form and the decimal id
// in the short form. A page continues after the last item of the previous one (its sort time
// and id), so that items arriving meanwhile neither repeat nor skip an item.
type Reader struct {
	Store   Store
	Sources *app.Sources
}

// Store holds the queries of the Reader API that the item and source stores do not
// have. Each is scoped to one user; hidden items are never part of a stream.
type Store interface {
	// ReaderRefs returns up to limit items of the stream s (only the fields a reference needs:
	// ID, SourceID, CreatedAt, PublishedAt, ReadAt, Starred, Score) in its order, with each
	// one's sort time as stored (for the continuation).
	ReaderRefs(ctx context.Context, userID int64, s *Stream, limit int) ([]*app.Item, []string, error)
	// ReaderItems returns the user's items among ids, whole, in the order of ids, each once.
	ReaderItems(ctx context.Context, userID int64, ids []int64) ([]*app.Item, error)
	// SetItemsState marks the user's items among ids read or unread and starred or not (nil
	// leaves a state as it is), in one transaction.
	SetItemsState(ctx context.Context, userID int64, ids []int64, read, starred *bool) (int, error)
	// MarkRead marks the user's unread, not hidden items in scope read and says how many.
	MarkRead(ctx context.Context, userID int64, scope app.ReadScope) (int, error)
	// ReaderUnreadCounts returns the unread items per source with the newest one's sort time,
	// and how many unread items score at least topScore.
	ReaderUnreadCounts(ctx context.Context, userID int64, topScore int) (map[int64]int, map[int64]time.Time, int, error)
	// SourceIDByURL returns the id of the user's source with this address, or app.ENOTFOUND.
	SourceIDByURL(ctx context.Context, userID int64, url string) (int64, error)
}

const (
	// TopScore is the score from which an item carries the Top stories label.
	TopScore   = app.HighScore
	TopStories = "Top stories"

	StateReadingList = "user/-/state/com.google/reading-list"
	StateRead        = "user/-/state/com.google/read"
	StateStarred     = "user/-/state/com.google/starred"
	StateFresh       = "user/-/state/com.google/fresh"
	stateKeptUnread  = "user/-/state/com.google/kept-unread"
	labelPrefix      = "user/-/label/"
	// ItemPrefix starts an item's long id.
	ItemPrefix = "tag:google.com,2005:reader/item/"
)

// Stream is a stream with its filters: which items, in what order, from where.
type Stream struct {
	ID          string // as asked, for the answer
	SourceID    int64
	FolderID    int64 // a folder's sources (a label stream)
	ReadState   int   // 0 any, 1 unread, 2 read
	StarState   int   // 0 any, 1 starred, 2 not starred
	MinScore    int
	Empty       bool      // a label no item has: an empty stream
	Oldest      time.Time // bounds of the time an item was fetched (its crawl time); zero for none
	Newest      time.Time
	OldestFirst bool
	AfterSort   string // the continuation: after this sort time and id
	AfterID     int64
	N           int // items a page
}

// StreamRequest is a stream as an app asks for it, the parameters as sent: s (or the stream
// in the address), xt (excluded), it (included), n, ot, nt, r and c.
type StreamRequest struct {
	Stream           string
	Exclude, Include []string
	N, OT, NT        string
	Order            string
	Continuation     string
}

// FolderLabel is a folder's label stream id.
func FolderLabel(name string) string { return labelPrefix + name }

// TopLabel is the label of the items scoring at least TopScore.
const TopLabel = labelPrefix + TopStories

// LabelName is the name in a label stream id ("user/-/label/NAME" or "user/ID/label/NAME").
func LabelName(stream string) (string, bool) {
	return strings.CutPrefix(NormalizeTag(stream), labelPrefix)
}

// NormalizeTag writes "user/USERID/…" as "user/-/…".
func NormalizeTag(t string) string {
	t = strings.TrimSpace(t)
	if rest, ok := strings.CutPrefix(t, "user/"); ok {
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			return "user/-" + rest[i:]
		}
	}
	return t
}

// FeedStreamURL takes the address out of a stream id "feed/ADDRESS".
func FeedStreamURL(stream string) (string, bool) {
	u, ok := strings.CutPrefix(strings.TrimSpace(stream), "feed/")
	return u, ok && u != ""
}

// StreamTitle is a state's or label's title ("Starred", a folder's name); a feed's id as it is.
func StreamTitle(id string) string {
	switch NormalizeTag(id) {
	case StateStarred:
		return "Starred"
	case StateRead:
		return "Read"
	case StateReadingList:
		return "Reading list"
	}
	if l, ok := LabelName(id); ok {
		return l
	}
	return id
}

// LongItemID is an item's id in the long form.
func LongItemID(id int64) string { return fmt.Sprintf("%s%016x", ItemPrefix, id) }

// ParseItemIDs reads item ids in the long form (hex) or the short one (decimal), at most max.
func ParseItemIDs(raw []string, max int) ([]int64, error) {
	if len(raw) == 0 {
		return nil, app.Errorf(app.EINVALID, "Say which items with i=ID (one i= per item).")
	}
	if len(raw) > max {
		return nil, app.Errorf(app.EINVALID, "At most %d items at once; got %d.", max, len(raw))
	}
	ids := make([]int64, 0, len(raw))
	for _, v := range raw {
		id, ok := parseItemID(v)
		if !ok {
			return nil, app.Errorf(app.EINVALID, "%q is not an item id: use the decimal id or %s followed by 16 hex digits.", app.Shorten(v, 60), ItemPrefix)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

func parseItemID(v string) (int64, bool) {
	v = strings.TrimSpace(v)
	if h, ok := strings.CutPrefix(v, ItemPrefix); ok {
		n, err := strconv.ParseUint(h, 16, 64)
		return int64(n), err == nil && n > 0 && n <= math.MaxInt64
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil && n > 0
}

// SortTime is when an item sorts in a stream: published, else fetched.
func SortTime(it *app.Item) time.Time {
	if it.PublishedAt != nil {
		return *it.PublishedAt
	}
	return it.CreatedAt
}

// ItemCategories are the states and labels an item carries.
func ItemCategories(it *app.Item, folder string) []string {
	cats := []string{StateReadingList}
	if folder != "" {
		cats = append(cats, FolderLabel(folder))
	}
	if it.ReadAt != nil {
		cats = append(cats, StateRead)
	}
	if it.Starred {
		cats = append(cats, StateStarred)
	}
	if it.Score != nil && *it.Score >= TopScore {
		cats = append(cats, TopLabel)
	}
	return cats
}

// folderNamed returns the user's folder called name (any case), or nil when there is none.
func (r *Reader) folderNamed(ctx context.Context, userID int64, name string) (*app.Folder, error) {
	fs, err := r.Sources.Folders(ctx, userID, app.FolderLookupCap)
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

// Stream reads a stream and its parameters; a page holds defaultN items unless n says
// otherwise, at most maxN.
func (r *Reader) Stream(ctx context.Context, userID int64, req StreamRequest, defaultN, maxN int) (*Stream, error) {
	if req.Stream == "" {
		req.Stream = StateReadingList
	}
	q := &Stream{ID: req.Stream, N: defaultN}
	if err := r.applyTarget(ctx, userID, q, req.Stream, false); err != nil {
		return nil, err
	}
	for _, t := range req.Exclude {
		if err := r.applyTarget(ctx, userID, q, t, true); err != nil {
			return nil, err
		}
	}
	for _, t := range req.Include {
		if err := r.applyTarget(ctx, userID, q, t, false); err != nil {
			return nil, err
		}
	}
	if req.N != "" {
		n, err := strconv.Atoi(req.N)
		if err != nil || n < 1 {
			return nil, app.Errorf(app.EINVALID, "n must be a whole number of items, at least 1.")
		}
		q.N = min(n, maxN)
	}
	for _, tp := range []struct {
		name, v string
		dst     *time.Time
	}{{"ot", req.OT, &q.Oldest}, {"nt", req.NT, &q.Newest}} {
		if tp.v != "" {
			sec, err := strconv.ParseInt(tp.v, 10, 64)
			if err != nil || sec < 0 || sec > 1<<40 {
				return nil, app.Errorf(app.EINVALID, "%s must be a time in seconds since 1970 (Unix time).", tp.name)
			}
			*tp.dst = time.Unix(sec, 0)
		}
	}
	switch req.Order {
	case "", "n", "d":
	case "o":
		q.OldestFirst = true
	default:
		return nil, app.Errorf(app.EINVALID, "r must be o (oldest first) or n (newest first).")
	}
	if c := req.Continuation; c != "" {
		sortAt, id, ok := parseContinuation(c)
		if !ok {
			return nil, app.Errorf(app.EINVALID, "The continuation token %q is not one this server gave.", app.Shorten(c, 60))
		}
		q.AfterSort, q.AfterID = sortAt, id
	}
	return q, nil
}

// applyTarget narrows q to the stream or state target; exclude turns it into its opposite.
func (r *Reader) applyTarget(ctx context.Context, userID int64, q *Stream, target string, exclude bool) error {
	pick := func(ifExcluded, ifIncluded int) int {
		if exclude {
			return ifExcluded
		}
		return ifIncluded
	}
	t := NormalizeTag(target)
	switch {
	case t == StateReadingList:
		if exclude {
			q.Empty = true
		}
	case t == StateRead:
		q.ReadState = pick(1, 2)
	case t == StateStarred:
		q.StarState = pick(2, 1)
	case t == stateKeptUnread || t == StateFresh:
		q.ReadState = pick(2, 1)
	case t == TopLabel:
		if exclude {
			return app.Errorf(app.EINVALID, "Excluding the %s label is not supported.", TopStories)
		}
		q.MinScore = TopScore
	case strings.HasPrefix(t, labelPrefix):
		f, err := r.folderNamed(ctx, userID, strings.TrimPrefix(t, labelPrefix))
		if err != nil {
			return err
		}
		if f == nil { // a label that is no folder holds no items
			if !exclude {
				q.Empty = true
			}
			return nil
		}
		if exclude {
			return app.Errorf(app.EINVALID, "Excluding a folder is not supported.")
		}
		if q.FolderID != 0 && q.FolderID != f.ID {
			q.Empty = true
		}
		q.FolderID = f.ID
	case strings.HasPrefix(t, "user/-/state/"):
		// Other states (broadcast, like…) hold no items.
		if !exclude {
			q.Empty = true
		}
	case strings.HasPrefix(t, "feed/"):
		u, _ := FeedStreamURL(t)
		id, err := r.Store.SourceIDByURL(ctx, userID, u)
		if app.ErrorCode(err) == app.ENOTFOUND {
			return app.Errorf(app.ENOTFOUND, "No subscription %s: you do not follow %s.", t, u)
		} else if err != nil {
			return err
		}
		if exclude {
			return app.Errorf(app.EINVALID, "Excluding a subscription is not supported.")
		}
		if q.SourceID != 0 && q.SourceID != id {
			q.Empty = true
		}
		q.SourceID = id
	default:
		return app.Errorf(app.EINVALID, "Unknown stream %q: use feed/ADDRESS, user/-/state/com.google/reading-list, read or starred, or %s.", target, TopLabel)
	}
	return nil
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

// Refs is a page of the stream (the reference fields of its items) and the continuation to
// the next page ("" on the last).
func (r *Reader) Refs(ctx context.Context, userID int64, q *Stream) ([]*app.Item, string, error) {
	if q.Empty {
		return nil, "", nil
	}
	items, sorts, err := r.Store.ReaderRefs(ctx, userID, q, q.N+1)
	if err != nil {
		return nil, "", err
	}
	var c string
	if len(items) > q.N {
		items = items[:q.N]
		c = continuation(sorts[q.N-1], items[q.N-1].ID)
	}
	return items, c, nil
}

// Item is a whole item with what the API tells of its source and its categories.
type Item struct {
	*app.Item
	FeedURL    string
	Categories []string
}

// Items are the user's items among ids, whole, in the order of ids (others' ids left out).
func (r *Reader) Items(ctx context.Context, userID int64, ids []int64) ([]Item, error) {
	items, err := r.Store.ReaderItems(ctx, userID, ids)
	if err != nil {
		return nil, err
	}
	srcs := map[int64]*app.Source{}
	out := make([]Item, 0, len(items))
	for _, it := range items {
		src := srcs[it.SourceID]
		if src == nil {
			if src, err = r.Sources.Get(ctx, userID, it.SourceID); err != nil {
				return nil, err
			}
			srcs[it.SourceID] = src
		}
		out = append(out, Item{Item: it, FeedURL: src.URL, Categories: ItemCategories(it, src.Folder)})
	}
	return out, nil
}

// Contents is a page of the stream, whole items, and the continuation to the next page.
func (r *Reader) Contents(ctx context.Context, userID int64, q *Stream) ([]Item, string, error) {
	refs, c, err := r.Refs(ctx, userID, q)
	if err != nil {
		return nil, "", err
	}
	ids := make([]int64, 0, len(refs))
	for _, it := range refs {
		ids = append(ids, it.ID)
	}
	items, err := r.Items(ctx, userID, ids)
	return items, c, err
}

// EditTags is edit-tag: add and remove the read and starred states of the items ids;
// kept-unread marks unread (unless read is also added); other states (tracking-…, broadcast)
// and labels are accepted and ignored.
func (r *Reader) EditTags(ctx context.Context, userID int64, ids []int64, add, remove []string) error {
	var read, starred *bool
	yes, no := true, false
	for _, t := range add {
		switch NormalizeTag(t) {
		case StateRead:
			read = &yes
		case StateStarred:
			starred = &yes
		case stateKeptUnread:
			if read == nil {
				read = &no
			}
		}
	}
	for _, t := range remove {
		switch NormalizeTag(t) {
		case StateRead:
			read = &no
		case StateStarred:
			starred = &no
		}
	}
	if read == nil && starred == nil {
		return nil
	}
	_, err := r.Store.SetItemsState(ctx, userID, ids, read, starred)
	return err
}

// MarkAllRead is mark-all-as-read: the stream's unread items, fetched no later than before
// (zero for any), so that an app does not mark read what it has not shown yet.
func (r *Reader) MarkAllRead(ctx context.Context, userID int64, q *Stream, before time.Time) error {
	if q.Empty || q.ReadState == 2 {
		return nil
	}
	_, err := r.Store.MarkRead(ctx, userID, app.ReadScope{SourceID: q.SourceID, FolderID: q.FolderID, MinScore: q.MinScore,
		StarredOnly: q.StarState == 1, Before: before})
	return err
}

// UnreadCount is a stream's unread items and the newest one's sort time (zero when none).
type UnreadCount struct {
	Stream string
	Count  int
	Newest time.Time
}

// UnreadCounts are the unread items of each subscription, each folder, the reading list and
// Top stories; and the total.
func (r *Reader) UnreadCounts(ctx context.Context, userID int64) ([]UnreadCount, int, error) {
	counts, newest, top, err := r.Store.ReaderUnreadCounts(ctx, userID, TopScore)
	if err != nil {
		return nil, 0, err
	}
	srcs, err := r.Sources.List(ctx, userID)
	if err != nil {
		return nil, 0, err
	}
	out := make([]UnreadCount, 0, len(srcs)+2)
	total := 0
	var latest time.Time
	folders := map[string]*UnreadCount{}
	var folderNames []string
	for _, src := range srcs {
		n := counts[src.ID]
		var at time.Time
		if n > 0 {
			at = newest[src.ID]
		}
		total += n
		if at.After(latest) {
			latest = at
		}
		if src.Folder != "" {
			fc := folders[src.Folder]
			if fc == nil {
				fc = &UnreadCount{Stream: FolderLabel(src.Folder)}
				folders[src.Folder] = fc
				folderNames = append(folderNames, src.Folder)
			}
			fc.Count += n
			if at.After(fc.Newest) {
				fc.Newest = at
			}
		}
		out = append(out, UnreadCount{"feed/" + src.URL, n, at})
	}
	for _, name := range folderNames {
		out = append(out, *folders[name])
	}
	var topAt time.Time
	if top > 0 {
		topAt = latest
	}
	out = append(out, UnreadCount{StateReadingList, total, latest}, UnreadCount{TopLabel, top, topAt})
	return out, total, nil
}

// Label is a state or a label of tag/list; Type is "folder" for a folder, "tag" for Top
// stories, "" for a state.
type Label struct {
	ID, Type string
}

// Labels are the states, the Top stories label and the user's folders.
func (r *Reader) Labels(ctx context.Context, userID int64) ([]Label, error) {
	out := []Label{{ID: StateStarred}, {ID: StateRead}, {ID: StateReadingList}, {ID: TopLabel, Type: "tag"}}
	fs, err := r.Sources.Folders(ctx, userID, app.FolderLookupCap)
	if err != nil {
		return nil, err
	}
	for _, f := range fs {
		out = append(out, Label{ID: FolderLabel(f.Name), Type: "folder"})
	}
	return out, nil
}

// Follow follows a feed for the user, as the app.Sources page would; an address already followed
// is not an error (its source is answered).
func (r *Reader) Follow(ctx context.Context, userID int64, raw, title string) (*app.Source, error) {
	raw = strings.TrimSpace(raw)
	if u, ok := FeedStreamURL(raw); ok {
		raw = u
	}
	if raw == "" {
		return nil, app.Errorf(app.EINVALID, "Say what to follow with quickadd=ADDRESS.")
	}
	in := app.AddSource{UserID: userID, URL: raw, Name: title}
	if r.Sources.Detector == nil {
		in.Type = app.SourceRSS
	}
	src, err := r.Sources.Add(ctx, in)
	if app.ErrorCode(err) == app.ECONFLICT {
		if u, nerr := app.NormalizeURL(raw); nerr == nil {
			if id, ierr := r.Store.SourceIDByURL(ctx, userID, u); ierr == nil {
				return r.Sources.Get(ctx, userID, id)
			}
		}
	}
	return src, err
}

// SubscriptionEdit is subscription/edit: Action subscribe, unsubscribe or edit, for each of
// Streams (feed/ADDRESS); Title renames (or names a new subscription); Add (a label) puts it
// in that folder, made when new; Remove takes it out of that folder.
type SubscriptionEdit struct {
	Action      string
	Streams     []string
	Title       string
	Add, Remove []string
}

// EditSubscriptions applies a subscription/edit.
func (r *Reader) EditSubscriptions(ctx context.Context, userID int64, e SubscriptionEdit) error {
	if len(e.Streams) == 0 {
		return app.Errorf(app.EINVALID, "Say which subscription with s=feed/ADDRESS.")
	}
	title := strings.TrimSpace(e.Title)
	for _, st := range e.Streams {
		u, ok := FeedStreamURL(st)
		if !ok {
			return app.Errorf(app.EINVALID, "%q is not a subscription: write it as feed/ADDRESS.", st)
		}
		switch e.Action {
		case "subscribe":
			src, err := r.Follow(ctx, userID, u, title)
			if err != nil {
				return err
			}
			if err := r.moveByLabels(ctx, userID, src.ID, src.Folder, e.Add, e.Remove); err != nil {
				return err
			}
		case "unsubscribe":
			id, err := r.Store.SourceIDByURL(ctx, userID, u)
			if err != nil {
				return err
			}
			if err := r.Sources.Delete(ctx, userID, id); err != nil {
				return err
			}
		case "edit":
			id, err := r.Store.SourceIDByURL(ctx, userID, u)
			if err != nil {
				return err
			}
			if title != "" {
				if _, err := r.Sources.Update(ctx, userID, id, app.SourceUpdate{Name: &title}); err != nil {
					return err
				}
			}
			src, err := r.Sources.Get(ctx, userID, id)
			if err != nil {
				return err
			}
			if err := r.moveByLabels(ctx, userID, id, src.Folder, e.Add, e.Remove); err != nil {
				return err
			}
		default:
			return app.Errorf(app.EINVALID, "ac must be subscribe, unsubscribe or edit.")
		}
	}
	return nil
}

// moveByLabels applies remove (take out of the folder) and add (put in the folder) to a
// source now in folder current. Labels that are not folders (states, Top stories) are ignored.
func (r *Reader) moveByLabels(ctx context.Context, userID, sourceID int64, current string, add, remove []string) error {
	for _, l := range remove {
		name, ok := LabelName(l)
		if ok && current != "" && strings.EqualFold(strings.TrimSpace(name), current) {
			if _, err := r.Sources.Move(ctx, userID, sourceID, ""); err != nil {
				return err
			}
			current = ""
		}
	}
	for _, l := range add {
		name, ok := LabelName(l)
		if !ok || strings.EqualFold(name, TopStories) {
			continue
		}
		if _, err := app.CleanFolderName(name); err != nil {
			return err
		}
		src, err := r.Sources.Move(ctx, userID, sourceID, name)
		if err != nil {
			return err
		}
		current = src.Folder
	}
	return nil
}

// RenameLabel is rename-tag: the folder of label from takes the name of label to.
func (r *Reader) RenameLabel(ctx context.Context, userID int64, from, to string) error {
	oldName, ok1 := LabelName(from)
	newName, ok2 := LabelName(to)
	if !ok1 || !ok2 {
		return app.Errorf(app.EINVALID, "Say which folder with s=user/-/label/NAME and its new name with dest=user/-/label/NEW-NAME.")
	}
	f, err := r.folderNamed(ctx, userID, oldName)
	if err != nil {
		return err
	}
	if f == nil {
		return app.Errorf(app.ENOTFOUND, "No folder is called %q.", oldName)
	}
	_, err = r.Sources.RenameFolder(ctx, userID, f.ID, newName)
	return err
}

// DeleteLabel is disable-tag: the folder of the label goes; its sources stay, in no folder. A
// label that is no folder is not an error.
func (r *Reader) DeleteLabel(ctx context.Context, userID int64, label string) error {
	name, ok := LabelName(label)
	if !ok {
		return app.Errorf(app.EINVALID, "Say which folder with s=user/-/label/NAME.")
	}
	f, err := r.folderNamed(ctx, userID, name)
	if err != nil || f == nil {
		return err
	}
	return r.Sources.DeleteFolder(ctx, userID, f.ID)
}
