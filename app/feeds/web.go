package feeds

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/url"
	"path"
	"regexp"
	"sort"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/publicsuffix"

	"github.com/morningdeck/morningdeck/app"
)

const acceptHTML = "text/html, application/xhtml+xml;q=0.9, */*;q=0.5"

func (f *Fetcher) fetchWeb(ctx context.Context, req Request) (*Result, error) {
	resp, err := f.get(ctx, req.URL, acceptHTML, req.ETag, req.LastModified)
	if err != nil {
		return nil, err
	}
	res := f.newResult(resp, req)
	res.CacheUntil = cacheUntil(resp.header, 0, f.clock.Now())
	if resp.notModified {
		return res, nil
	}
	_, cs := resp.contentType()
	if looksJSON(resp.body) || !looksHTML(resp.body) && !hasMarkup(resp.body) {
		return nil, &Error{Kind: KindParse, Message: "The content is not a web page we can read."}
	}
	page := parsePage(ctx, htmlToUTF8(resp.body, cs), resp.finalURL)
	if page.err != nil {
		return nil, page.err
	}
	res.Title = page.title
	res.SiteURL = resp.finalURL.String()
	res.Items = page.items
	return res, nil
}

// page is what we read from an HTML page.
type page struct {
	title string
	feeds []FeedLink
	items []app.Item
	err   error // the page could not be parsed
}

// feedTypes are the link types of feeds a page may advertise.
var feedTypes = map[string]bool{
	"application/rss+xml":   true,
	"application/atom+xml":  true,
	"application/feed+json": true,
	"application/json":      true,
	"application/rdf+xml":   true,
}

// skippedElements hold navigation and chrome, not articles.
var skippedElements = map[atom.Atom]bool{
	atom.Nav: true, atom.Header: true, atom.Footer: true, atom.Aside: true, atom.Form: true,
	atom.Script: true, atom.Style: true, atom.Template: true, atom.Noscript: true, atom.Select: true,
	atom.Button: true, atom.Dialog: true, atom.Menu: true,
}

var skippedRoles = map[string]bool{"navigation": true, "banner": true, "contentinfo": true, "search": true, "menu": true, "menubar": true, "complementary": true}

// parsePage reads the title, advertised feeds and article links of a page in UTF-8.
// It runs under a parse budget (deadline.go).
func parsePage(ctx context.Context, b []byte, pageURL *url.URL) (p page) {
	defer func() {
		if r := recover(); r != nil {
			p = page{err: &Error{Kind: KindParse, Message: "The content is not a web page we can read: the parser failed.", Err: fmt.Errorf("panic: %v", r)}}
		}
	}()
	bud := newBudget(ctx)
	doc, err := html.Parse(bud.reader(bytes.NewReader(b)))
	if err != nil && bud.spent() {
		return page{err: bud.err("page")}
	}
	if err != nil {
		// x/net/html refuses pages nested more than 512 deep; reading from memory, nothing else fails.
		return page{err: &Error{Kind: KindParse, Message: "The content is not a web page we can read: its elements are nested too deeply.", Err: err}}
	}
	base := pageURL
	if n := find(doc, atom.Base); n != nil {
		if u, err := url.Parse(strings.TrimSpace(attr(n, "href"))); err == nil {
			base = pageURL.ResolveReference(u)
		}
	}
	if n := find(doc, atom.Title); n != nil {
		p.title = shorten(collapseSpace(textOf(n)), maxTitleRunes)
	}

	seenFeed := map[string]bool{}
	var walkLinks func(n *html.Node)
	walkLinks = func(n *html.Node) {
		if n.Type == html.ElementNode && n.DataAtom == atom.Link && hasToken(attr(n, "rel"), "alternate") {
			typ := strings.ToLower(strings.TrimSpace(strings.Split(attr(n, "type"), ";")[0]))
			if u := absoluteHTTP(base, attr(n, "href")); feedTypes[typ] && u != "" && !seenFeed[u] {
				seenFeed[u] = true
				p.feeds = append(p.feeds, FeedLink{URL: u, Title: feedLinkTitle(attr(n, "title")), Type: typ})
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walkLinks(c)
		}
	}
	walkLinks(doc)
	rankFeeds(p.feeds, pageURL)

	body := find(doc, atom.Body)
	if body == nil {
		return p
	}
	self := withoutFragment(pageURL)
	index := map[string]int{}
	var walk func(n *html.Node, inArticle bool)
	walk = func(n *html.Node, inArticle bool) {
		if n.Type == html.ElementNode {
			if skippedElements[n.DataAtom] || skippedRoles[strings.ToLower(strings.TrimSpace(attr(n, "role")))] {
				return
			}
			switch n.DataAtom {
			case atom.Article, atom.H1, atom.H2, atom.H3, atom.H4:
				inArticle = true
			case atom.A:
				p.addLink(n, base, pageURL, self, inArticle, index)
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inArticle)
		}
	}
	walk(body, false)
	return p
}

// addLink turns an <a> into an item when it looks like a link to an article.
func (p *page) addLink(n *html.Node, base, pageURL *url.URL, self string, inArticle bool, index map[string]int) {
	if len(p.items) >= MaxItems {
		return
	}
	href := strings.TrimSpace(attr(n, "href"))
	if href == "" || strings.HasPrefix(href, "#") {
		return
	}
	abs := absoluteHTTP(base, href)
	if abs == "" {
		return
	}
	u, err := url.Parse(abs)
	if err != nil {
		return
	}
	link := withoutFragment(u)
	if link == self || !sameSite(u.Hostname(), pageURL.Hostname()) || boilerplate(u) {
		return
	}
	heading := inArticle || find(n, atom.H1) != nil || find(n, atom.H2) != nil || find(n, atom.H3) != nil || find(n, atom.H4) != nil
	title := collapseSpace(textOf(n))
	if title == "" {
		title = collapseSpace(attr(n, "title"))
	}
	if title == "" {
		if img := find(n, atom.Img); img != nil {
			title = collapseSpace(attr(img, "alt"))
		}
	}
	if title == "" {
		return
	}
	if !heading && (len(strings.Fields(title)) < 3 || len(title) < 15) {
		return
	}
	title = shorten(title, maxTitleRunes)
	if i, ok := index[link]; ok {
		// Keep the first; a later, longer text for the same link is usually the better title.
		if len(strings.Fields(p.items[i].Title)) < 3 && len(title) > len(p.items[i].Title) {
			p.items[i].Title = title
		}
		return
	}
	index[link] = len(p.items)
	p.items = append(p.items, app.Item{GUID: link, Title: title, Link: link})
}

var (
	boilerplateSegments = map[string]bool{
		"login": true, "log-in": true, "signin": true, "sign-in": true, "logout": true, "signup": true, "sign-up": true,
		"register": true, "join": true, "subscribe": true, "account": true, "cart": true, "search": true,
		"about": true, "about-us": true, "contact": true, "contact-us": true, "privacy": true, "privacy-policy": true,
		"terms": true, "terms-of-service": true, "terms-of-use": true, "tos": true, "legal": true, "imprint": true, "impressum": true,
		"cookies": true, "cookie-policy": true, "feed": true, "feeds": true, "rss": true, "atom": true, "sitemap": true,
		"wp-login": true, "wp-admin": true,
	}
	// listingSegments start paths that list other pages.
	listingSegments = map[string]bool{"tag": true, "tags": true, "category": true, "categories": true, "author": true, "authors": true, "topic": true, "topics": true, "page": true}
	fileExt         = regexp.MustCompile(`(?i)\.(jpe?g|png|gif|webp|svg|ico|css|js|xml|rss|atom|json|zip|gz|mp3|mp4|pdf)$`)
	number          = regexp.MustCompile(`^\d+$`)
)

// boilerplate reports whether a URL is a site's chrome rather than an article.
func boilerplate(u *url.URL) bool {
	p := strings.ToLower(strings.Trim(u.Path, "/"))
	if p == "" || p == "index.html" || p == "index.php" {
		return true
	}
	if fileExt.MatchString(p) {
		return true
	}
	segs := strings.Split(p, "/")
	for i, s := range segs {
		name := strings.TrimSuffix(s, path.Ext(s))
		if boilerplateSegments[s] || boilerplateSegments[name] {
			return true
		}
		if listingSegments[s] && (s != "page" || (i+1 < len(segs) && number.MatchString(segs[i+1]))) {
			return true
		}
	}
	return false
}

// sameSite reports whether two hosts belong to the same registrable domain, ignoring www.
func sameSite(a, b string) bool {
	a = strings.TrimPrefix(strings.ToLower(strings.TrimSuffix(a, ".")), "www.")
	b = strings.TrimPrefix(strings.ToLower(strings.TrimSuffix(b, ".")), "www.")
	if a == b {
		return true
	}
	if net.ParseIP(a) != nil || net.ParseIP(b) != nil || !strings.Contains(a, ".") || !strings.Contains(b, ".") {
		return false
	}
	ra, err1 := publicsuffix.EffectiveTLDPlusOne(a)
	rb, err2 := publicsuffix.EffectiveTLDPlusOne(b)
	return err1 == nil && err2 == nil && ra == rb
}

func withoutFragment(u *url.URL) string {
	c := *u
	c.Fragment, c.RawFragment = "", ""
	return c.String()
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasToken(list, token string) bool {
	for _, f := range strings.Fields(strings.ToLower(list)) {
		if f == token {
			return true
		}
	}
	return false
}

// find returns the first element a below n (or n itself), depth first.
func find(n *html.Node, a atom.Atom) *html.Node {
	if n.Type == html.ElementNode && n.DataAtom == a {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if r := find(c, a); r != nil {
			return r
		}
	}
	return nil
}

// textOf returns the text below n, skipping scripts and styles, with spaces between blocks.
func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			b.WriteString(n.Data)
		case html.ElementNode:
			switch n.DataAtom {
			case atom.Script, atom.Style, atom.Template, atom.Noscript, atom.Svg:
				return
			}
			if blockElements[n.DataAtom] {
				b.WriteByte(' ')
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
		if n.Type == html.ElementNode && blockElements[n.DataAtom] {
			b.WriteByte(' ')
		}
	}
	walk(n)
	return b.String()
}

// genericFeedTitle matches the titles of <link rel="alternate"> that name a format, not a
// feed ("RSS", "Atom 1.0", "RSS Feed"): no name for a source.
var genericFeedTitle = regexp.MustCompile(`(?i)^(?:(?:rss|atom|json|rdf|xml)\s*(?:\d(?:\.\d+)?)?\s*(?:feed)?|feed|subscribe|syndication)$`)

// feedLinkTitle is the title a page gives a feed it advertises, "" when it only names a format.
func feedLinkTitle(s string) string {
	s = collapseSpace(s)
	if genericFeedTitle.MatchString(s) {
		return ""
	}
	return shorten(s, maxTitleRunes)
}

// rankFeeds puts the page's own feeds first: the ones whose address names the page (its last
// path segment or title, e.g. a Wikipedia article's history feed) or lies under its path, then
// the rest in page order, and last the site-wide ones (recent changes, all comments).
func rankFeeds(feeds []FeedLink, pageURL *url.URL) {
	seg := strings.ToLower(path.Base(strings.TrimSuffix(pageURL.Path, "/")))
	if i := strings.LastIndexByte(seg, '.'); i > 0 {
		seg = seg[:i]
	}
	if q := pageURL.Query().Get("title"); q != "" {
		seg = strings.ToLower(q)
	}
	dir := strings.ToLower(strings.TrimSuffix(pageURL.Path, "/"))
	score := func(f FeedLink) int {
		u := strings.ToLower(f.URL)
		t := strings.ToLower(f.Title)
		fu, err := url.Parse(f.URL)
		switch {
		case strings.Contains(u, "recentchanges") || strings.Contains(u, "recent_changes") || strings.Contains(t, "recent changes"):
			return -2
		case len(seg) >= 3 && (strings.Contains(u, "title="+url.QueryEscape(seg)) || strings.Contains(u, "/"+seg+"/") || strings.Contains(u, "="+seg+"&") || strings.HasSuffix(u, "="+seg)):
			return 2
		case err == nil && len(dir) > 1 && strings.HasPrefix(strings.ToLower(fu.Path), dir+"/"):
			return 1
		case strings.Contains(u, "comments") || strings.Contains(t, "comments"):
			return -1
		}
		return 0
	}
	sort.SliceStable(feeds, func(i, j int) bool { return score(feeds[i]) > score(feeds[j]) })
}
