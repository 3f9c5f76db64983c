package feeds

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/morningdeck/morningdeck/app"
)

// Detection is what Detect found at an address (app's type: one definition for both).
type Detection = app.Detection

// FeedLink is a feed a page advertises with <link rel="alternate"> (app's type).
type FeedLink = app.FeedLink

// Detect finds out what rawURL is: a subreddit ("r/golang", "/r/golang" or a reddit.com
// URL; not fetched), a feed, or a web page (with the feeds it advertises). An address
// without a scheme gets https://. It does not choose among a page's feeds: the caller does.
func (f *Fetcher) Detect(ctx context.Context, rawURL string) (det *Detection, err error) {
	defer func() {
		if r := recover(); r != nil {
			det, err = nil, &Error{Kind: KindParse, Message: "The content is neither a feed nor a web page we can read.", Err: fmt.Errorf("panic: %v", r)}
		}
	}()
	s := strings.TrimSpace(rawURL)
	if s == "" {
		return nil, app.Errorf(app.EINVALID, "Please give a web address.")
	}
	if app.LooksLikeSubreddit(s) {
		// The one subreddit rule (app.Subreddit), shared with adding and fetching.
		u, err := app.Subreddit(s)
		if err != nil {
			return nil, err
		}
		return &Detection{Type: app.SourceReddit, URL: u, Title: u[strings.Index(u, "/r/")+1:]}, nil
	}
	if !strings.Contains(s, "://") {
		s = "https://" + strings.TrimPrefix(s, "//")
	}
	if _, err := parseURL(s); err != nil {
		return nil, err
	}
	resp, err := f.get(ctx, s, acceptFeed+", text/html;q=0.8", "", "")
	if err != nil {
		return nil, err
	}
	defer resp.done()
	final := resp.finalURL.String()
	_, cs := resp.contentType()
	if feed, _, perr := parseFeed(ctx, resp.body, cs); perr == nil {
		return &Detection{Type: app.SourceRSS, URL: final, Title: app.Shorten(titleText(feed.Title, literalTitle(feed, feed.Custom)), maxTitleRunes)}, nil
	} else if looksJSON(resp.body) || !looksHTML(resp.body) && !hasMarkup(resp.body) {
		// JSON is never a web page, whatever markup its strings hold.
		if errors.Is(perr, errRefused) {
			return nil, perr
		}
		return nil, &Error{Kind: KindParse, Message: "The address is neither a feed nor a web page we can read.", Err: perr}
	}
	page := parsePage(ctx, htmlToUTF8(resp.body, cs), resp.finalURL)
	if page.err != nil {
		return nil, page.err
	}
	return &Detection{Type: app.SourceWeb, URL: final, Title: page.title, Feeds: page.feeds}, nil
}

// markupTags are elements whose presence makes a document that is not a feed a web page
// (a fragment served without <html>, say) rather than something we cannot read.
var markupTags = [][]byte{[]byte("<body"), []byte("<div"), []byte("<p>"), []byte("<p "), []byte("<a "), []byte("<img "),
	[]byte("<article"), []byte("<section"), []byte("<h1"), []byte("<h2"), []byte("<ul"), []byte("<table")}

// looksJSON reports whether a body is a JSON object or array.
func looksJSON(b []byte) bool {
	t := bytes.TrimLeft(bytes.TrimPrefix(b, utf8BOM), " \t\r\n")
	return len(t) > 0 && (t[0] == '{' || t[0] == '[')
}

func hasMarkup(b []byte) bool {
	head := bytes.ToLower(b[:min(len(b), 8192)])
	for _, t := range markupTags {
		if bytes.Contains(head, t) {
			return true
		}
	}
	return false
}
