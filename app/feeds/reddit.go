package feeds

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"math"
	"net/url"
	"strings"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

// subreddit splits a subreddit URL (on any host) into scheme://host and the name, by the one
// subreddit rule (app.Subreddit) that adding a source follows too.
func subreddit(raw string) (base *url.URL, name string, err error) {
	norm, err := app.Subreddit(raw)
	if err != nil {
		return nil, "", err
	}
	u, err := parseURL(norm)
	if err != nil {
		return nil, "", err
	}
	return &url.URL{Scheme: u.Scheme, Host: u.Host}, strings.TrimPrefix(u.Path, "/r/"), nil
}

// redditListing is the part of a Reddit listing we read.
type redditListing struct {
	Kind string `json:"kind"`
	Data struct {
		Children []struct {
			Kind string     `json:"kind"`
			Data redditPost `json:"data"`
		} `json:"children"`
	} `json:"data"`
}

type redditPost struct {
	ID           string  `json:"id"`
	Name         string  `json:"name"`
	Title        string  `json:"title"`
	Permalink    string  `json:"permalink"`
	URL          string  `json:"url"`
	Author       string  `json:"author"`
	CreatedUTC   float64 `json:"created_utc"`
	Score        float64 `json:"score"`
	NumComments  float64 `json:"num_comments"`
	Selftext     string  `json:"selftext"`
	SelftextHTML *string `json:"selftext_html"`
	IsSelf       bool    `json:"is_self"`
	Over18       bool    `json:"over_18"`
	Subreddit    string  `json:"subreddit"`
}

func (f *Fetcher) fetchReddit(ctx context.Context, req Request) (*Result, error) {
	base, name, err := subreddit(req.URL)
	if err != nil {
		return nil, err
	}
	listing := base.JoinPath("r", name, "new.json")
	listing.RawQuery = "limit=100"
	resp, err := f.get(ctx, listing.String(), "application/json", req.ETag, req.LastModified)
	if err != nil {
		return nil, err
	}
	defer resp.done()
	res := f.newResult(resp, req)
	res.CacheUntil = cacheUntil(resp.header, 0, f.clock.Now())
	res.Title = "r/" + name
	res.SiteURL = base.JoinPath("r", name).String()
	if resp.notModified {
		return res, nil
	}
	var l redditListing
	if err := json.Unmarshal(dropControlChars(toUTF8(resp.body)), &l); err != nil {
		return nil, &Error{Kind: KindParse, Message: "The content is not a subreddit listing we can read: " + app.Shorten(err.Error(), 150) + ".", Err: err}
	}
	if l.Kind != "" && l.Kind != "Listing" {
		return nil, &Error{Kind: KindParse, Message: fmt.Sprintf("The content is not a subreddit listing we can read: it is a %q.", l.Kind)}
	}
	now := f.clock.Now()
	seen := map[string]bool{}
	for _, c := range l.Data.Children {
		if len(res.Items) >= MaxItems {
			break
		}
		if c.Kind != "" && c.Kind != "t3" {
			continue
		}
		if item, ok := redditItem(c.Data, base, now); ok && !seen[item.GUID] {
			seen[item.GUID] = true
			res.Items = append(res.Items, item)
		}
	}
	return res, nil
}

func redditItem(p redditPost, base *url.URL, now time.Time) (app.Item, bool) {
	guid := p.Name
	if guid == "" && p.ID != "" {
		guid = "t3_" + p.ID
	}
	title := app.Shorten(collapseSpace(html.UnescapeString(p.Title)), maxTitleRunes)
	if guid == "" || title == "" {
		return app.Item{}, false
	}
	link := absoluteHTTP(base, p.Permalink)
	external := ""
	if !p.IsSelf {
		external = absoluteHTTP(base, html.UnescapeString(p.URL))
	}
	if link == "" {
		link = external
	}
	var raw string
	if p.SelftextHTML != nil && *p.SelftextHTML != "" {
		raw = html.UnescapeString(*p.SelftextHTML)
	} else {
		raw = p.Selftext
	}
	raw, clean := sanitizeContent(raw, link)
	item := app.Item{
		GUID:         boundGUID(guid),
		Title:        title,
		Link:         link,
		Author:       app.Shorten(collapseSpace(p.Author), maxAuthorRunes),
		RawContent:   raw,
		CleanContent: clean,
		Extra: map[string]any{
			"permalink":   link,
			"externalUrl": external,
			"score":       int(p.Score),
			"comments":    int(p.NumComments),
			"selftext":    truncateUTF8(p.Selftext, MaxContentBytes),
			"over18":      p.Over18,
			"subreddit":   p.Subreddit,
		},
	}
	if p.CreatedUTC > 0 && p.CreatedUTC < math.MaxInt32*4 {
		sec, frac := math.Modf(p.CreatedUTC)
		t := time.Unix(int64(sec), int64(frac*1e9))
		item.PublishedAt = cleanDate(&t, now)
	}
	return item, true
}
