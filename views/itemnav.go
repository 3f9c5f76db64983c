package views

import (
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

// The item page's next and previous: an item opened from a list (Items with its filters, or
// Today) carries that list's parameters and its place in it in its URL, so its page can find
// its neighbours by asking for the same list around that place.

// listKeys are the parameters of the Items page that make its list.
var listKeys = []string{"q", "show", "source", "folder", "topic", "tag", "minScore", "sort"}

// ItemNav links an item's page back to its list and to the items beside it there.
type ItemNav struct {
	Back, Prev, Next string
}

// OpenHref is the item's page, with the list it is shown in when it has one.
func (v ItemView) OpenHref() string {
	if v.ListQuery == "" {
		return v.Href()
	}
	return v.Href() + "?" + v.ListQuery
}

// placeInList gives each item of a list the list's parameters and its place (offset + index).
// list is "" for Items, "today" for Today.
func placeInList(items []ItemView, q url.Values, list string, offset int, now time.Time) {
	base := url.Values{}
	base.Set("since", strconv.FormatInt(now.Unix(), 10))
	if list != "" {
		base.Set("list", list)
		if v := q.Get("folder"); v != "" {
			base.Set("folder", v)
		}
	} else {
		for _, k := range listKeys {
			if v := q.Get(k); v != "" {
				base.Set(k, v)
			}
		}
	}
	for i := range items {
		vals := url.Values{}
		for k, v := range base {
			vals[k] = v
		}
		vals.Set("pos", strconv.Itoa(offset+i))
		items[i].ListQuery = vals.Encode()
	}
}

// listFilter is the filter of the list an item page's URL names (as the Items page and Today
// make it), and the address of that list.
func listFilter(r *http.Request, q url.Values) (app.ItemFilter, string, bool) {
	if q.Get("list") == "today" {
		f := app.ItemFilter{UserID: userID(r)}
		folder, _ := strconv.ParseInt(q.Get("folder"), 10, 64)
		f.Unread, f.Sort, f.FolderID = true, "score", max(folder, 0)
		back := "/"
		if f.FolderID > 0 {
			back += "?folder=" + strconv.FormatInt(f.FolderID, 10)
		}
		return f, back, true
	}
	f, _, err := itemsPageFilter(r, q)
	if err != nil {
		return f, "", false
	}
	back := url.Values{}
	for _, k := range listKeys {
		if v := q.Get(k); v != "" {
			back.Set(k, v)
		}
	}
	return f, "/items?" + back.Encode(), true
}

// itemNav finds the items before and after item id in the list its page's URL names. Opening
// an item marks it read, so in an unread list it is gone by now: the item now in its place is
// the next one.
func (s *Server) itemNav(r *http.Request, id int64) ItemNav {
	q := r.URL.Query()
	pos, err := strconv.Atoi(q.Get("pos"))
	if err != nil || pos < 0 || pos > 1_000_000 || s.opts.Sources == nil {
		return ItemNav{}
	}
	f, back, ok := listFilter(r, q)
	if !ok {
		return ItemNav{}
	}
	if since, err := strconv.ParseInt(q.Get("since"), 10, 64); err == nil && since > 0 && f.Unread {
		f.ReadSince = time.Unix(since, 0) // what was unread when the list was shown stays in it
	}
	base := max(pos-2, 0)
	f.Offset, f.Limit = base, 5
	window, err := s.opts.Sources.Items(r.Context(), f)
	if err != nil {
		return ItemNav{Back: back}
	}
	link := func(i int) string {
		if i < 0 || i >= len(window) {
			return ""
		}
		vals := url.Values{}
		for k, v := range q {
			vals[k] = v
		}
		vals.Set("pos", strconv.Itoa(base+i))
		return "/items/" + strconv.FormatInt(window[i].ID, 10) + "?" + vals.Encode()
	}
	nav := ItemNav{Back: back}
	for i, it := range window {
		if it.ID == id {
			nav.Prev, nav.Next = link(i-1), link(i+1)
			return nav
		}
	}
	// Not in the list any more (read now, in an unread list): what is in its place comes next.
	at := pos - base
	nav.Prev, nav.Next = link(at-1), link(at)
	return nav
}
