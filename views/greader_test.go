package views_test

import (
	"context"
	"encoding/xml"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/greader"
	"github.com/morningdeck/morningdeck/queue"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
	"github.com/morningdeck/morningdeck/views"
)

const gr = "/api/greader"

func TestGReaderSignIn(t *testing.T) {
	e := newAuthEnv(t)
	base := e.srv.URL
	anon := &grClient{t: t, base: base}

	t.Run("a password gives a session token that the API takes in the GoogleLogin header", func(t *testing.T) {
		c := clientLogin(t, base, "ann", "correct horse battery")
		info := decodeJSON[map[string]any](t, c.ok(http.MethodGet, gr+"/reader/api/0/user-info", nil))
		if info["userName"] != "ann" || info["userId"] != strconv.FormatInt(e.ann.ID, 10) {
			t.Fatalf("user-info = %v", info)
		}
		if tok := c.ok(http.MethodGet, gr+"/reader/api/0/token", nil); len(tok) < 20 || strings.ContainsAny(tok, "\n ") {
			t.Fatalf("token = %q", tok)
		}
		// Bearer works too, and so do FreshRSS's address and a doubled slash after the base.
		res, body := anon.do(http.MethodGet, gr+".php//reader/api/0/user-info", nil, "Authorization", "Bearer "+c.auth)
		if res.StatusCode != http.StatusOK || !strings.Contains(body, `"ann"`) {
			t.Fatalf("Bearer on /api/greader.php: %d %s", res.StatusCode, body)
		}
	})

	t.Run("an API token is an app password, for its own user only", func(t *testing.T) {
		_, secret, err := e.accounts.NewAPIToken(context.Background(), e.bob.ID, "phone")
		if err != nil {
			t.Fatal(err)
		}
		c := clientLogin(t, base, "bob", secret)
		if c.auth != secret {
			t.Fatalf("Auth = %q, want the API token itself", c.auth)
		}
		if info := decodeJSON[map[string]any](t, c.ok(http.MethodGet, gr+"/reader/api/0/user-info", nil)); info["userName"] != "bob" {
			t.Fatalf("user-info = %v", info)
		}
		anon.fails(http.StatusUnauthorized, "Error=BadAuthentication", http.MethodPost, gr+"/accounts/ClientLogin", url.Values{"Email": {"ann"}, "Passwd": {secret}})
	})

	t.Run("wrong or missing credentials are refused", func(t *testing.T) {
		anon.fails(http.StatusUnauthorized, "Error=BadAuthentication", http.MethodPost, gr+"/accounts/ClientLogin", url.Values{"Email": {"ann"}, "Passwd": {"wrong password"}})
		anon.fails(http.StatusUnauthorized, "Error=BadAuthentication", http.MethodPost, gr+"/accounts/ClientLogin", url.Values{"Email": {"ann"}})
		anon.fails(http.StatusUnauthorized, "Sign in first", http.MethodGet, gr+"/reader/api/0/subscription/list", nil)
		bad := &grClient{t: t, base: base, auth: "not-a-token"}
		bad.fails(http.StatusUnauthorized, "sign in again", http.MethodGet, gr+"/reader/api/0/subscription/list", nil)
		bad.auth = "md_revoked-or-never-issued"
		bad.fails(http.StatusUnauthorized, "sign in again", http.MethodGet, gr+"/reader/api/0/subscription/list", nil)
	})

	t.Run("a session cookie alone never authenticates a write", func(t *testing.T) {
		cookie := e.login("ann", "correct horse battery")
		res, body := anon.do(http.MethodPost, gr+"/reader/api/0/edit-tag", url.Values{"i": {"1"}, "a": {"user/-/state/com.google/read"}, "T": {"x"}}, "Cookie", cookie)
		if res.StatusCode != http.StatusUnauthorized {
			t.Fatalf("edit-tag with a cookie: %d %s", res.StatusCode, body)
		}
	})

	t.Run("the password change ends the sessions ClientLogin opened", func(t *testing.T) {
		c := clientLogin(t, base, "bob", "another long secret")
		if err := e.accounts.SetPassword(context.Background(), e.bob.ID, "a brand new secret"); err != nil {
			t.Fatal(err)
		}
		c.fails(http.StatusUnauthorized, "sign in again", http.MethodGet, gr+"/reader/api/0/user-info", nil)
	})

	t.Run("sign-in attempts are rate-limited per address", func(t *testing.T) {
		var last *http.Response
		for i := 0; i < 12; i++ {
			last, _ = anon.do(http.MethodPost, gr+"/accounts/ClientLogin", url.Values{"Email": {"ann"}, "Passwd": {"guess " + strconv.Itoa(i)}})
		}
		if last.StatusCode != http.StatusTooManyRequests || last.Header.Get("Retry-After") == "" {
			t.Fatalf("12th attempt: %d, Retry-After %q", last.StatusCode, last.Header.Get("Retry-After"))
		}
	})
}

func TestGReaderRateLimit(t *testing.T) {
	e := newAuthEnv(t)
	c := clientLogin(t, e.srv.URL, "ann", "correct horse battery")
	limited := false
	for i := 0; i < 300 && !limited; i++ {
		res, _ := c.do(http.MethodGet, gr+"/reader/api/0/tag/list", nil)
		limited = res.StatusCode == http.StatusTooManyRequests && res.Header.Get("Retry-After") != ""
	}
	if !limited {
		t.Fatal("300 requests in a row were never rate-limited")
	}
	// Another user has a bucket of their own.
	bob := clientLogin(t, e.srv.URL, "bob", "another long secret")
	bob.ok(http.MethodGet, gr+"/reader/api/0/tag/list", nil)
}

func TestGReaderStreams(t *testing.T) {
	dir := corpusFeeds(t)
	e := newAuthEnv(t)
	feedSrv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(feedSrv.Close)
	paul := ingest(t, e.db, feedSrv, e.ann.ID, "PaulDixExplainsNothing.xml")
	tc := ingest(t, e.db, feedSrv, e.ann.ID, "TechCrunch.xml")
	bobs := ingest(t, e.db, feedSrv, e.bob.ID, "SamRuby.xml")
	ann := clientLogin(t, e.srv.URL, "ann", "correct horse battery")
	bob := clientLogin(t, e.srv.URL, "bob", "another long secret")
	annAll := itemIDsOf(t, e.db, app.ItemFilter{UserID: e.ann.ID})
	bobAll := itemIDsOf(t, e.db, app.ItemFilter{UserID: e.bob.ID})
	paulIDs := itemIDsOf(t, e.db, app.ItemFilter{UserID: e.ann.ID, SourceID: paul.ID})
	if len(annAll) != paul.ItemCount+tc.ItemCount || len(paulIDs) != 5 || len(bobAll) == 0 {
		t.Fatalf("ingested: ann %d (paul %d, tc %d), bob %d", len(annAll), len(paulIDs), tc.ItemCount, len(bobAll))
	}
	const api = gr + "/reader/api/0/"

	t.Run("subscription/list and tag/list", func(t *testing.T) {
		subs := decodeJSON[struct {
			Subscriptions []struct {
				ID, Title, URL, HTMLURL string
			} `json:"subscriptions"`
		}](t, ann.ok(http.MethodGet, api+"subscription/list", url.Values{"output": {"json"}}))
		var got []string
		for _, s := range subs.Subscriptions {
			got = append(got, s.ID+" "+s.Title)
		}
		slices.Sort(got)
		want := []string{"feed/" + paul.URL + " " + paul.Name, "feed/" + tc.URL + " " + tc.Name}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("ann's subscriptions = %q, want %q", got, want)
		}
		// NetNewsWire requires categories to be an array, even an empty one.
		if body := ann.ok(http.MethodGet, api+"subscription/list", nil); strings.Count(body, `"categories":[]`) != 2 {
			t.Errorf("categories are not empty arrays: %s", body)
		}
		if body := bob.ok(http.MethodGet, api+"subscription/list", nil); strings.Contains(body, paul.URL) || !strings.Contains(body, bobs.URL) {
			t.Fatalf("bob's subscriptions: %s", body)
		}
		tags := ann.ok(http.MethodGet, api+"tag/list", url.Values{"output": {"json"}})
		for _, want := range []string{"user/-/state/com.google/starred", "user/-/label/Top stories"} {
			if !strings.Contains(tags, want) {
				t.Errorf("tag/list lacks %s: %s", want, tags)
			}
		}
	})

	t.Run("stream/items/ids pages through every item with the continuation, either order", func(t *testing.T) {
		for _, r := range []string{"", "o"} {
			got := ann.ids(url.Values{"s": {"user/-/state/com.google/reading-list"}, "n": {"4"}, "r": {r}})
			if len(got) != len(annAll) || !sameSet(got, annAll) {
				t.Fatalf("r=%q: %d ids over the pages, want %d: %v", r, len(got), len(annAll), got)
			}
		}
		newest := ann.ids(url.Values{"s": {"user/-/state/com.google/reading-list"}, "n": {"1000"}})
		oldest := ann.ids(url.Values{"s": {"user/-/state/com.google/reading-list"}, "n": {"1000"}, "r": {"o"}})
		if !slices.Equal(newest, annAll) {
			t.Errorf("newest first = %v, want the app's order %v", newest, annAll)
		}
		slices.Reverse(oldest)
		if !slices.Equal(oldest, newest) {
			t.Errorf("r=o is not the reverse of newest first")
		}
		if got := ann.ids(url.Values{"s": {"feed/" + paul.URL}}); !sameSet(got, paulIDs) {
			t.Errorf("feed stream = %v, want %v", got, paulIDs)
		}
		if got := bob.ids(url.Values{"s": {"user/-/state/com.google/reading-list"}, "n": {"1000"}}); !sameSet(got, bobAll) {
			t.Errorf("bob's reading list = %v, want only his %v", got, bobAll)
		}
	})

	t.Run("ot and nt bound the time items were fetched", func(t *testing.T) {
		hour := time.Now().Add(time.Hour).Unix()
		ago := time.Now().Add(-time.Hour).Unix()
		rl := "user/-/state/com.google/reading-list"
		if got := ann.ids(url.Values{"s": {rl}, "ot": {strconv.FormatInt(hour, 10)}}); len(got) != 0 {
			t.Errorf("ot in an hour: %v", got)
		}
		if got := ann.ids(url.Values{"s": {rl}, "ot": {strconv.FormatInt(ago, 10)}, "n": {"1000"}}); !sameSet(got, annAll) {
			t.Errorf("ot an hour ago: %d ids, want %d", len(got), len(annAll))
		}
		if got := ann.ids(url.Values{"s": {rl}, "nt": {strconv.FormatInt(ago, 10)}}); len(got) != 0 {
			t.Errorf("nt an hour ago: %v", got)
		}
	})

	t.Run("edit-tag marks many items read and starred at once, long and short ids alike", func(t *testing.T) {
		read := []int64{paulIDs[0], paulIDs[1], paulIDs[2]}
		ann.ok(http.MethodPost, api+"edit-tag", url.Values{"i": {longID(read[0]), strconv.FormatInt(read[1], 10), longID(read[2])},
			"a": {"user/-/state/com.google/read"}, "r": {"user/-/state/com.google/kept-unread"}, "ac": {"edit"}, "T": {"anything"}})
		ann.ok(http.MethodPost, api+"edit-tag", url.Values{"i": {longID(paulIDs[3])}, "a": {"user/" + strconv.FormatInt(e.ann.ID, 10) + "/state/com.google/starred"}})
		unread := ann.ids(url.Values{"s": {"feed/" + paul.URL}, "xt": {"user/-/state/com.google/read"}})
		if !sameSet(unread, paulIDs[3:]) {
			t.Errorf("xt=read: %v, want %v", unread, paulIDs[3:])
		}
		if got := ann.ids(url.Values{"s": {"user/-/state/com.google/read"}}); !sameSet(got, read) {
			t.Errorf("s=read: %v, want %v", got, read)
		}
		starred := ann.ids(url.Values{"s": {"user/-/state/com.google/starred"}})
		also := ann.ids(url.Values{"s": {"user/-/state/com.google/reading-list"}, "it": {"user/-/state/com.google/starred"}})
		if !slices.Equal(starred, []int64{paulIDs[3]}) || !slices.Equal(also, starred) {
			t.Errorf("starred: %v, it=starred: %v, want [%d]", starred, also, paulIDs[3])
		}
		it, err := e.db.Item(context.Background(), e.ann.ID, paulIDs[3])
		if err != nil || !it.Starred || it.ReadAt != nil {
			t.Fatalf("in Morning Deck: starred %v, read %v, %v", it.Starred, it.ReadAt, err)
		}
		// Unread again, and unstarred.
		ann.ok(http.MethodPost, api+"edit-tag", url.Values{"i": {longID(read[0])}, "r": {"user/-/state/com.google/read"}})
		ann.ok(http.MethodPost, api+"edit-tag", url.Values{"i": {longID(paulIDs[3])}, "r": {"user/-/state/com.google/starred"}})
		if it, _ := e.db.Item(context.Background(), e.ann.ID, read[0]); it.ReadAt != nil {
			t.Error("r=read left the item read")
		}
		if got := ann.ids(url.Values{"s": {"user/-/state/com.google/starred"}}); len(got) != 0 {
			t.Errorf("still starred: %v", got)
		}
	})

	t.Run("stream/items/contents and stream/contents answer whole items with sanitized HTML", func(t *testing.T) {
		body := ann.ok(http.MethodPost, api+"stream/items/contents", url.Values{"i": {longID(paulIDs[1]), strconv.FormatInt(paulIDs[4], 10)}})
		s := decodeJSON[grStream](t, body)
		// NetNewsWire requires "updated" as a JSON integer; the ids in itemRefs are strings (grRefs decodes them so).
		if shape := decodeJSON[map[string]any](t, body); fmt.Sprintf("%T", shape["updated"]) != "float64" {
			t.Errorf("updated = %#v", shape["updated"])
		}
		if len(s.Items) != 2 || s.Items[0].ID != longID(paulIDs[1]) || s.Items[1].ID != longID(paulIDs[4]) {
			t.Fatalf("items = %+v", s.Items)
		}
		for i, id := range []int64{paulIDs[1], paulIDs[4]} {
			it, err := e.db.Item(context.Background(), e.ann.ID, id)
			if err != nil {
				t.Fatal(err)
			}
			g := s.Items[i]
			if g.Title != it.Title || g.Summary.Content != it.CleanContent || g.Origin.StreamID != "feed/"+paul.URL ||
				len(g.Canonical) != 1 || g.Canonical[0].Href != it.Link || !slices.Contains(g.Categories, "user/-/state/com.google/reading-list") {
				t.Errorf("item %d = %+v", id, g)
			}
			if g.Summary.Content == it.RawContent && strings.Contains(it.RawContent, "<script") {
				t.Errorf("item %d: raw content served", id)
			}
		}
		if strings.Contains(strings.ToLower(body), "<script") {
			t.Error("a script in the served content")
		}
		// The stream in the path, escaped as apps send it, with a continuation.
		var seen []string
		params := url.Values{"n": {"2"}}
		for range 10 {
			s := decodeJSON[grStream](t, ann.ok(http.MethodGet, api+"stream/contents/"+url.PathEscape("feed/"+paul.URL), params))
			if s.ID != "feed/"+paul.URL {
				t.Fatalf("stream id = %q", s.ID)
			}
			for _, it := range s.Items {
				seen = append(seen, it.ID)
			}
			if s.Continuation == "" {
				break
			}
			params.Set("c", s.Continuation)
		}
		if len(seen) != 5 {
			t.Errorf("stream/contents pages gave %d items, want 5: %v", len(seen), seen)
		}
		// Bob cannot read ann's items, not even by id.
		if s := decodeJSON[grStream](t, bob.ok(http.MethodPost, api+"stream/items/contents", url.Values{"i": {longID(paulIDs[1])}})); len(s.Items) != 0 {
			t.Errorf("bob got ann's item: %+v", s.Items)
		}
	})

	t.Run("the score is the Top stories label", func(t *testing.T) {
		score(t, e.db, paulIDs[2], 91)
		score(t, e.db, paulIDs[3], 40)
		if got := ann.ids(url.Values{"s": {"user/-/label/Top stories"}}); !slices.Equal(got, []int64{paulIDs[2]}) {
			t.Errorf("Top stories = %v, want [%d]", got, paulIDs[2])
		}
		s := decodeJSON[grStream](t, ann.ok(http.MethodGet, api+"stream/items/contents", url.Values{"i": {strconv.FormatInt(paulIDs[2], 10)}}))
		if len(s.Items) != 1 || !slices.Contains(s.Items[0].Categories, "user/-/label/Top stories") {
			t.Errorf("categories = %+v", s.Items)
		}
	})

	t.Run("unread-count per feed and in all", func(t *testing.T) {
		counts := decodeJSON[struct {
			UnreadCounts []struct {
				ID    string `json:"id"`
				Count int    `json:"count"`
			} `json:"unreadcounts"`
		}](t, ann.ok(http.MethodGet, api+"unread-count", url.Values{"output": {"json"}}))
		got := map[string]int{}
		for _, c := range counts.UnreadCounts {
			got[c.ID] = c.Count
		}
		paulUnread := len(itemIDsOf(t, e.db, app.ItemFilter{UserID: e.ann.ID, SourceID: paul.ID, Unread: true}))
		allUnread := len(itemIDsOf(t, e.db, app.ItemFilter{UserID: e.ann.ID, Unread: true}))
		if got["feed/"+paul.URL] != paulUnread || got["feed/"+tc.URL] != tc.ItemCount || got["user/-/state/com.google/reading-list"] != allUnread || allUnread == 0 {
			t.Errorf("unread counts = %v, want paul %d, tc %d, all %d", got, paulUnread, tc.ItemCount, allUnread)
		}
		if _, ok := got["feed/"+bobs.URL]; ok {
			t.Error("ann's counts name bob's feed")
		}
	})

	t.Run("mark-all-as-read keeps what was fetched after ts", func(t *testing.T) {
		past := strconv.FormatInt(time.Now().Add(-time.Hour).UnixMicro(), 10)
		ann.ok(http.MethodPost, api+"mark-all-as-read", url.Values{"s": {"feed/" + tc.URL}, "ts": {past}})
		if n := len(itemIDsOf(t, e.db, app.ItemFilter{UserID: e.ann.ID, SourceID: tc.ID, Unread: true})); n != tc.ItemCount {
			t.Fatalf("ts an hour ago marked items read: %d unread of %d", n, tc.ItemCount)
		}
		ann.ok(http.MethodPost, api+"mark-all-as-read", url.Values{"s": {"feed/" + tc.URL}, "ts": {strconv.FormatInt(time.Now().Add(time.Minute).UnixMicro(), 10)}})
		if n := len(itemIDsOf(t, e.db, app.ItemFilter{UserID: e.ann.ID, SourceID: tc.ID, Unread: true})); n != 0 {
			t.Fatalf("%d items still unread", n)
		}
		if n := len(itemIDsOf(t, e.db, app.ItemFilter{UserID: e.ann.ID, SourceID: paul.ID, Unread: true})); n == 0 {
			t.Fatal("the other feed was marked read too")
		}
		// Bob's items are his: ann marking everything read leaves them, and ann's ids do nothing for bob.
		ann.ok(http.MethodPost, api+"mark-all-as-read", url.Values{"s": {"user/-/state/com.google/reading-list"}})
		bob.ok(http.MethodPost, api+"edit-tag", url.Values{"i": {longID(paulIDs[4])}, "r": {"user/-/state/com.google/read"}})
		if n := len(itemIDsOf(t, e.db, app.ItemFilter{UserID: e.bob.ID, Unread: true})); n != len(bobAll) {
			t.Errorf("bob has %d unread of %d after ann marked all read", n, len(bobAll))
		}
		if it, _ := e.db.Item(context.Background(), e.ann.ID, paulIDs[4]); it.ReadAt == nil {
			t.Error("bob's edit-tag changed ann's item")
		}
		bob.fails(http.StatusNotFound, "do not follow", http.MethodGet, api+"stream/items/ids", url.Values{"s": {"feed/" + paul.URL}})
	})

	t.Run("reader/atom is the stream as Atom, with newsboat's read labels", func(t *testing.T) {
		ann.fails(http.StatusNotFound, "do not follow", http.MethodGet, gr+"/reader/atom/"+url.PathEscape("feed/"+bobs.URL), nil)
		b2 := bob.ok(http.MethodGet, gr+"/reader/atom/"+url.PathEscape("feed/"+bobs.URL), url.Values{"n": {"50"}})
		var feed struct {
			Title   string `xml:"title"`
			Entries []struct {
				ID         string `xml:"id"`
				Categories []struct {
					Scheme string `xml:"scheme,attr"`
					Label  string `xml:"label,attr"`
				} `xml:"category"`
			} `xml:"entry"`
		}
		if err := xml.Unmarshal([]byte(b2), &feed); err != nil {
			t.Fatal(err)
		}
		if feed.Title != bobs.Name || len(feed.Entries) != len(bobAll) {
			t.Fatalf("atom: title %q, %d entries, want %q and %d", feed.Title, len(feed.Entries), bobs.Name, len(bobAll))
		}
		for _, en := range feed.Entries {
			fresh := false
			for _, c := range en.Categories {
				fresh = fresh || c.Label == "fresh" && c.Scheme == "http://www.google.com/reader/"
			}
			if !strings.HasPrefix(en.ID, "tag:google.com,2005:reader/item/") || !fresh {
				t.Errorf("entry %+v", en)
			}
		}
	})
}

func TestGReaderBadInput(t *testing.T) {
	dir := corpusFeeds(t)
	e := newAuthEnv(t)
	feedSrv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(feedSrv.Close)
	paul := ingest(t, e.db, feedSrv, e.ann.ID, "PaulDixExplainsNothing.xml")
	c := clientLogin(t, e.srv.URL, "ann", "correct horse battery")
	const api = gr + "/reader/api/0/"
	rl := "user/-/state/com.google/reading-list"
	for _, tc := range []struct {
		status       int
		want         string
		method, path string
		form         url.Values
	}{
		{400, "Say which stream", "GET", api + "stream/items/ids", nil},
		{400, "n must be a whole number", "GET", api + "stream/items/ids", url.Values{"s": {rl}, "n": {"many"}}},
		{400, "n must be a whole number", "GET", api + "stream/items/ids", url.Values{"s": {rl}, "n": {"0"}}},
		{400, "continuation token", "GET", api + "stream/items/ids", url.Values{"s": {rl}, "c": {"garbage!"}}},
		{400, "ot must be a time", "GET", api + "stream/items/ids", url.Values{"s": {rl}, "ot": {"-5"}}},
		{400, "nt must be a time", "GET", api + "stream/items/ids", url.Values{"s": {rl}, "nt": {"yesterday"}}},
		{400, "r must be o", "GET", api + "stream/items/ids", url.Values{"s": {rl}, "r": {"sideways"}}},
		{400, "Unknown stream", "GET", api + "stream/items/ids", url.Values{"s": {"splice/42"}}},
		{404, "do not follow", "GET", api + "stream/contents/" + url.PathEscape("feed/https://nowhere.example/feed"), nil},
		{400, "Say which items", "POST", api + "stream/items/contents", nil},
		{400, "is not an item id", "POST", api + "stream/items/contents", url.Values{"i": {"tag:google.com,2005:reader/item/zz"}}},
		{400, "is not an item id", "POST", api + "edit-tag", url.Values{"i": {"-3"}, "a": {"user/-/state/com.google/read"}}},
		{405, "send it as a POST", "GET", api + "edit-tag", url.Values{"i": {"1"}}},
		{405, "send it as a POST", "GET", api + "mark-all-as-read", url.Values{"s": {rl}}},
		{400, "Say which stream to mark read", "POST", api + "mark-all-as-read", nil},
		{400, "ts must be a time", "POST", api + "mark-all-as-read", url.Values{"s": {rl}, "ts": {"soon"}}},
		{400, "ac must be", "POST", api + "subscription/edit", url.Values{"s": {"feed/" + paul.URL}, "ac": {"explode"}}},
		{400, "write it as feed/ADDRESS", "POST", api + "subscription/edit", url.Values{"s": {"http://x.example"}, "ac": {"subscribe"}}},
		{400, "Say which subscription", "POST", api + "subscription/edit", url.Values{"ac": {"subscribe"}}},
		{404, "do not follow", "POST", api + "subscription/edit", url.Values{"s": {"feed/https://nowhere.example/feed"}, "ac": {"unsubscribe"}}},
		{400, "Say what to follow", "POST", api + "subscription/quickadd", nil},
		{404, "No such Reader API endpoint", "GET", api + "stream/everything", nil},
		{404, "No such Reader API endpoint", "GET", gr + "/reader/api/1/token", nil},
	} {
		c.fails(tc.status, tc.want, tc.method, tc.path, tc.form)
	}
	// Too many ids in one request.
	many := url.Values{"a": {"user/-/state/com.google/read"}}
	for i := 1; i <= 1001; i++ {
		many.Add("i", strconv.Itoa(i))
	}
	c.fails(400, "At most 1000 items", "POST", api+"edit-tag", many)
	// Nothing was lost on the way.
	if n := len(itemIDsOf(t, e.db, app.ItemFilter{UserID: e.ann.ID, SourceID: paul.ID, Unread: true})); n != 5 {
		t.Errorf("after the bad requests, %d of 5 items unread", n)
	}
}

func TestGReaderSubscriptionEdit(t *testing.T) {
	dir := corpusFeeds(t)
	e := newAuthEnv(t)
	feedSrv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(feedSrv.Close)
	c := clientLogin(t, e.srv.URL, "ann", "correct horse battery")
	bob := clientLogin(t, e.srv.URL, "bob", "another long secret")
	const api = gr + "/reader/api/0/"
	ctx := context.Background()
	feedURL := feedSrv.URL + "/SamRuby.xml"

	c.ok(http.MethodPost, api+"subscription/edit", url.Values{"s": {"feed/" + feedURL}, "ac": {"subscribe"}, "t": {"Sam"}, "a": {"user/-/label/Tech"}})
	c.ok(http.MethodPost, api+"subscription/edit", url.Values{"s": {"feed/" + feedURL}, "ac": {"subscribe"}}) // again: no error
	srcs, err := e.db.Sources(ctx, e.ann.ID)
	if err != nil || len(srcs) != 1 || srcs[0].URL != feedURL || srcs[0].Name != "Sam" || srcs[0].FetchStatus != app.FetchQueued {
		t.Fatalf("after subscribe: %+v %v", srcs, err)
	}
	if got, _ := e.db.Sources(ctx, e.bob.ID); len(got) != 0 {
		t.Fatalf("bob follows %d sources", len(got))
	}
	c.ok(http.MethodPost, api+"subscription/edit", url.Values{"s": {"feed/" + feedURL}, "ac": {"edit"}, "t": {"Intertwingly"}, "r": {"user/-/label/Tech"}})
	if src, _ := e.db.Source(ctx, e.ann.ID, srcs[0].ID); src.Name != "Intertwingly" {
		t.Fatalf("after rename: %q", src.Name)
	}
	bob.fails(http.StatusNotFound, "do not follow", http.MethodPost, api+"subscription/edit", url.Values{"s": {"feed/" + feedURL}, "ac": {"unsubscribe"}})

	added := decodeJSON[map[string]any](t, c.ok(http.MethodPost, api+"subscription/quickadd", url.Values{"quickadd": {feedSrv.URL + "/TechCrunch.xml"}}))
	if added["numResults"] != float64(1) || added["streamId"] != "feed/"+feedSrv.URL+"/TechCrunch.xml" {
		t.Fatalf("quickadd = %v", added)
	}
	bad := decodeJSON[map[string]any](t, c.ok(http.MethodPost, api+"subscription/quickadd", url.Values{"quickadd": {"not a url at all"}}))
	if bad["numResults"] != float64(0) || bad["error"] == "" {
		t.Fatalf("quickadd of nonsense = %v", bad)
	}

	c.ok(http.MethodPost, api+"subscription/edit", url.Values{"s": {"feed/" + feedURL}, "ac": {"unsubscribe"}})
	if srcs, _ := e.db.Sources(ctx, e.ann.ID); len(srcs) != 1 || srcs[0].URL != feedSrv.URL+"/TechCrunch.xml" {
		t.Fatalf("after unsubscribe: %+v", srcs)
	}
}

func TestGReaderLocalMode(t *testing.T) {
	dir := corpusFeeds(t)
	e := newEnv(t)
	feedSrv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(feedSrv.Close)
	src := ingest(t, e.db, feedSrv, app.DefaultUserID, "PaulDixExplainsNothing.xml")
	// Any name and password sign in; the token is the local user's, as is a request without one.
	c := clientLogin(t, e.srv.URL, "whoever", "whatever")
	anon := &grClient{t: t, base: e.srv.URL}
	for _, cl := range []*grClient{c, anon} {
		if got := cl.ids(url.Values{"s": {"feed/" + src.URL}}); len(got) != 5 {
			t.Fatalf("local stream: %v", got)
		}
	}
	// The local user has no sign-up time: 0, not Go's zero time (year 1).
	if info := c.ok(http.MethodGet, gr+"/reader/api/0/user-info", nil); !strings.Contains(info, `"signupTimeSec":0`) {
		t.Errorf("user-info: %s", info)
	}
	c.ok(http.MethodPost, gr+"/reader/api/0/edit-tag", url.Values{"i": {"1"}, "a": {"user/-/state/com.google/starred"}})
	if it, err := e.db.Item(context.Background(), app.DefaultUserID, 1); err != nil || !it.Starred {
		t.Fatalf("item 1: %+v %v", it, err)
	}
	// A page elsewhere cannot post to it from a browser (the app's cross-origin protection).
	res, body := anon.do(http.MethodPost, gr+"/reader/api/0/edit-tag", url.Values{"i": {"1"}, "r": {"user/-/state/com.google/starred"}},
		"Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example")
	if res.StatusCode != http.StatusForbidden {
		t.Fatalf("cross-site post: %d %s", res.StatusCode, body)
	}
}

// Items without a date sort by the time they were fetched, the same for a whole fetch: the
// continuation must still page through them without losing or repeating one.
func TestGReaderContinuationThroughTies(t *testing.T) {
	e := newEnv(t)
	src := e.createSource("https://ties.example/feed.xml", "Ties")
	var items []app.Item
	for i := range 7 {
		items = append(items, app.Item{GUID: fmt.Sprint("g", i), Title: fmt.Sprint("Undated ", i), Link: fmt.Sprint("https://ties.example/", i)})
	}
	e.fetch(src.ID, items...)
	all := itemIDsOf(t, e.db, app.ItemFilter{UserID: app.DefaultUserID})
	if len(all) != 7 {
		t.Fatalf("stored %d items", len(all))
	}
	c := &grClient{t: t, base: e.srv.URL}
	for _, r := range []string{"", "o"} {
		got := c.ids(url.Values{"s": {"feed/" + src.URL}, "n": {"2"}, "r": {r}})
		if len(got) != 7 || !sameSet(got, all) {
			t.Errorf("r=%q: %v, want the 7 of %v", r, got, all)
		}
	}
}

// BenchmarkGReader measures what a phone app's sync asks for, on one user's 10,000 items in
// 20 feeds (half of them read): the unread ids, the unread counts, and a page of 100 whole items.
func BenchmarkGReader(b *testing.B) {
	db := sqlitetest.New(b)
	fq := queue.NewFetchQueue(queue.FetchQueueOptions{Store: db, Capacity: 1000})
	pq := queue.NewProcessQueue(queue.ProcessQueueOptions{Store: db})
	sources := &app.Sources{Store: db, Queue: fq}
	srv := httptest.NewServer(views.New(views.Options{Sources: sources, Reader: &greader.Reader{Store: db, Sources: sources}, Reading: &app.Reading{Store: db, Queue: pq}, Settings: &app.UserSettings{Store: db}}))
	b.Cleanup(srv.Close)
	ctx := context.Background()
	day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for f := range 20 {
		src, err := sources.Add(ctx, app.AddSource{UserID: app.DefaultUserID, URL: fmt.Sprintf("https://feed%d.example/rss", f), Type: app.SourceRSS})
		if err != nil {
			b.Fatal(err)
		}
		var items []app.Item
		for i := range 500 {
			at := day.Add(time.Duration(f*500+i) * time.Minute)
			items = append(items, app.Item{GUID: fmt.Sprint(i), Title: fmt.Sprintf("Item %d of feed %d", i, f), Link: fmt.Sprintf("https://feed%d.example/%d", f, i),
				PublishedAt: &at, CleanContent: strings.Repeat("<p>Some words of an article body.</p>", 40)})
		}
		started, err := db.StartFetch(ctx, src.ID, time.Minute)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := db.FinishFetch(ctx, started, &app.FetchResult{Items: items}, nil); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := db.Write.Exec(`update items set read_at = created_at where id % 2 = 0`); err != nil {
		b.Fatal(err)
	}
	c := &grClient{t: &testing.T{}, base: srv.URL}
	page := decodeJSON[grRefs](&testing.T{}, c.ok(http.MethodGet, gr+"/reader/api/0/stream/items/ids", url.Values{"s": {"user/-/state/com.google/reading-list"}, "n": {"100"}}))
	contents := url.Values{}
	for _, r := range page.ItemRefs {
		contents.Add("i", r.ID)
	}
	for _, bc := range []struct {
		name, method, path string
		form               url.Values
	}{
		{"unread-ids-1000", http.MethodGet, "stream/items/ids", url.Values{"s": {"user/-/state/com.google/reading-list"}, "xt": {"user/-/state/com.google/read"}, "n": {"1000"}}},
		{"unread-count", http.MethodGet, "unread-count", nil},
		{"contents-100", http.MethodPost, "stream/items/contents", contents},
	} {
		b.Run(bc.name, func(b *testing.B) {
			c.t = &testing.T{}
			for b.Loop() {
				res, body := c.do(bc.method, gr+"/reader/api/0/"+bc.path, bc.form)
				if res.StatusCode != http.StatusOK {
					b.Fatalf("%d %s", res.StatusCode, body)
				}
			}
		})
	}
}
