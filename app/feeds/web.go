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
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/publicsuffix"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/htmltext"
)

const acceptHTML = "text/html, application/xhtml+xml;q=0.9, */*;q=0.5"

func (f *Fetcher) fetchWeb(ctx context.Context, req Request) (*Result, error) {
	resp, err := f.get(ctx, req.URL, acceptHTML, req.ETag, req.LastModified)
	if err != nil {
		return nil, err
	}
	defer resp.done()
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
		p.title = app.Shorten(collapseSpace(textOf(n)), maxTitleRunes)
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
	var cands []candidate
	var walk func(n *html.Node, inArticle bool)
	walk = func(n *html.Node, inArticle bool) {
		if n.Type == html.ElementNode {
			if skippedElements[n.DataAtom] || skippedRoles[strings.ToLower(strings.TrimSpace(attr(n, "role")))] || chromeClass(n) {
				return
			}
			switch n.DataAtom {
			case atom.Article, atom.H1, atom.H2, atom.H3, atom.H4:
				inArticle = true
			case atom.A:
				if len(cands) >= maxCandidates {
					return
				}
				if c, ok := linkCandidate(n, base, pageURL, self, inArticle); ok {
					cands = append(cands, c)
				}
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inArticle)
		}
	}
	walk(body, false)
	p.addLinks(cands)
	return p
}

// maxCandidates caps the links of a page considered (in page order), which bounds the memory
// a page of a hundred thousand links takes before MaxItems of them are kept.
const maxCandidates = 4 * MaxItems

// candidate is a link that may be an article.
type candidate struct {
	link, title string
	heading     bool // in an article or heading, or holds a heading
	permalink   bool // its address looks like an article's, not a section's
	block       *html.Node
	sig         string // the shape of the blocks around it, to find repeated ones
}

// chromeClassWords mark, in a class or id, the parts of a page around its articles.
var chromeClassWords = map[string]bool{"sidebar": true, "breadcrumb": true, "breadcrumbs": true, "cookie": true, "cookies": true,
	"share": true, "sharing": true, "social": true, "menu": true, "navbar": true, "nav": true, "navigation": true,
	"pagination": true, "pager": true, "skip": true, "topbar": true, "comments": true, "widget": true, "newsletter": true}

// chromeClass reports whether an element's class or id names it as page chrome.
func chromeClass(n *html.Node) bool {
	for _, v := range []string{attr(n, "class"), attr(n, "id")} {
		for _, tok := range strings.Fields(strings.ToLower(v)) {
			if chromeClassWords[tok] {
				return true
			}
			for _, part := range strings.FieldsFunc(tok, func(r rune) bool { return r == '-' || r == '_' }) {
				if chromeClassWords[part] && part != "nav" || part == "nav" && tok == "nav" {
					return true
				}
			}
		}
	}
	return false
}

// linkCandidate reads an <a>: its link and the title a reader would give it; ok is false for
// a link that is surely not an article (elsewhere, chrome, in running text, a timestamp).
func linkCandidate(n *html.Node, base, pageURL *url.URL, self string, inArticle bool) (c candidate, ok bool) {
	href := strings.TrimSpace(attr(n, "href"))
	if href == "" || strings.HasPrefix(href, "#") {
		return c, false
	}
	abs := absoluteHTTP(base, href)
	if abs == "" {
		return c, false
	}
	u, err := url.Parse(abs)
	if err != nil {
		return c, false
	}
	c.link = withoutFragment(u)
	if c.link == self || !sameSite(u.Hostname(), pageURL.Hostname()) || boilerplate(u) {
		return c, false
	}
	h := findHeading(n)
	c.heading = inArticle || h != nil
	c.title = linkTitle(n, h)
	if c.title == "" {
		return c, false
	}
	if !c.heading && inRunningText(n, c.title) {
		return c, false // a link in a sentence is a reference, not an article of the page
	}
	c.permalink = permalinkLike(u)
	c.block, c.sig = blockOf(n)
	return c, true
}

// addLinks turns the candidates into items: those in headings or articles, those whose title
// has some words, and short ones that sit in repeated blocks (a list of posts, the rows of a
// forum) with a permalink's address. The same link is one item, under its best title.
func (p *page) addLinks(cands []candidate) {
	blocks := map[string]map[*html.Node]bool{}
	for _, c := range cands {
		if c.block != nil {
			if blocks[c.sig] == nil {
				blocks[c.sig] = map[*html.Node]bool{}
			}
			blocks[c.sig][c.block] = true
		}
	}
	index := map[string]int{}
	for _, c := range cands {
		if len(p.items) >= MaxItems {
			return
		}
		repeated := c.block != nil && len(blocks[c.sig]) >= 3 && c.permalink
		if !c.heading && !repeated && (len(strings.Fields(c.title)) < 3 || len(c.title) < 15) {
			continue
		}
		title := app.Shorten(c.title, maxTitleRunes)
		if i, ok := index[c.link]; ok {
			// Keep the first; a later, longer text for the same link is usually the better title.
			if len(strings.Fields(p.items[i].Title)) < 3 && len(title) > len(p.items[i].Title) {
				p.items[i].Title = title
			}
			continue
		}
		index[c.link] = len(p.items)
		p.items = append(p.items, app.Item{GUID: c.link, Title: title, Link: c.link})
	}
}

// findHeading returns the first heading inside n, nil if none.
func findHeading(n *html.Node) *html.Node {
	for _, a := range []atom.Atom{atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6} {
		if h := find(n, a); h != nil {
			return h
		}
	}
	return nil
}

// linkTitle is the title of a link as a reader sees it: the heading it holds, else its text
// without photo credits, captions and timestamps; for a link whose text is a symbol ("★",
// "►") or a time, its title attribute, label or picture's description. "" if none.
func linkTitle(n, heading *html.Node) string {
	var t string
	if heading != nil {
		t = collapseSpace(titleTextOf(heading))
	} else {
		t = collapseSpace(titleTextOf(n))
	}
	if !hasWordChar(t) || isTimestamp(t) {
		t = ""
		for _, v := range []string{attr(n, "title"), attr(n, "aria-label")} {
			if v = collapseSpace(v); hasWordChar(v) && !isTimestamp(v) {
				t = v
				break
			}
		}
		if t == "" {
			if img := find(n, atom.Img); img != nil {
				if v := collapseSpace(attr(img, "alt")); hasWordChar(v) {
					t = v
				}
			}
		}
	}
	return t
}

// creditWords mark, in a class, a photo's credit or caption.
var creditWords = []string{"credit", "caption", "copyright", "photographer", "byline", "timestamp"}

// titleTextOf is textOf without what is not part of a title: figure captions, credits, times.
func titleTextOf(n *html.Node) string {
	return collectText(n, func(n *html.Node) bool {
		if n.DataAtom == atom.Figcaption || n.DataAtom == atom.Time {
			return true
		}
		cls := strings.ToLower(attr(n, "class"))
		for _, w := range creditWords {
			if strings.Contains(cls, w) {
				return true
			}
		}
		return false
	})
}

func hasWordChar(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return true
		}
	}
	return false
}

// timestampText matches what pages write as a link's time: "3 hours ago", "yesterday",
// "5m", "2d", "20:15", "Feb 28, 2026", "27.02.2026 14:05".
var timestampText = regexp.MustCompile(`(?i)^(?:(?:about |an? |\d+\s*)(?:s|sec|secs|seconds?|m|min|mins|minutes?|h|hr|hrs|hours?|d|days?|w|wk|weeks?|mo|months?|y|yr|years?)(?: ago)?|just now|now|today|yesterday|(?:at )?\d{1,2}[:.]\d{2}(?:\s*[ap]\.?m\.?)?)$`)

// isTimestamp reports whether a link's text is a time rather than a title.
func isTimestamp(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 40 {
		return false
	}
	if timestampText.MatchString(s) {
		return true
	}
	_, ok := parseDate(s)
	return ok
}

// inRunningText reports whether a link sits in a sentence: its paragraph holds much more text
// than the link.
func inRunningText(n *html.Node, title string) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.Type != html.ElementNode {
			continue
		}
		switch p.DataAtom {
		case atom.P, atom.Blockquote, atom.Dd:
			text := collapseSpace(textOf(p))
			return len([]rune(text)) > len([]rune(title))+40
		case atom.Li, atom.Td, atom.Div, atom.Article, atom.Section, atom.Body, atom.Main:
			return false
		}
	}
	return false
}

// permalinkLike reports whether an address looks like an article's: a path of two or more
// segments, or with digits, or a slug of several words, or a page file.
func permalinkLike(u *url.URL) bool {
	p := strings.Trim(u.Path, "/")
	if p == "" {
		return false
	}
	segs := strings.Split(p, "/")
	last := segs[len(segs)-1]
	return len(segs) >= 2 || strings.ContainsAny(p, "0123456789") || strings.Count(last, "-") >= 2 || strings.HasSuffix(last, ".html")
}

// blockOf returns the block a link sits in (its nearest ancestor that is a list item, table
// row, article or element with a class) and the shape of that block: its tag and class, and
// its parent's. Links in three or more blocks of one shape are in a repeated structure.
func blockOf(n *html.Node) (*html.Node, string) {
	for p := n.Parent; p != nil && p.Type == html.ElementNode; p = p.Parent {
		switch p.DataAtom {
		case atom.Body, atom.Main:
			return nil, ""
		}
		if p.DataAtom == atom.Li || p.DataAtom == atom.Tr || p.DataAtom == atom.Article || attr(p, "class") != "" {
			sig := p.Data + "." + attr(p, "class")
			if pp := p.Parent; pp != nil && pp.Type == html.ElementNode {
				sig = pp.Data + "." + attr(pp, "class") + ">" + sig
			}
			return p, sig
		}
	}
	return nil, ""
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
	listingSegments = map[string]bool{"tag": true, "tags": true, "category": true, "categories": true, "author": true, "authors": true, "topic": true, "topics": true, "page": true,
		"u": true, "user": true, "users": true, "profile": true, "profiles": true, "member": true, "members": true}
	fileExt = regexp.MustCompile(`(?i)\.(jpe?g|png|gif|webp|svg|ico|css|js|xml|rss|atom|json|zip|gz|mp3|mp4|pdf)$`)
	number  = regexp.MustCompile(`^\d+$`)
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
func textOf(n *html.Node) string { return collectText(n, nil) }

// collectText is the text below n, with spaces between blocks, without scripts, styles and
// the like, nor the elements skip (which may be nil) says to leave out with what they hold.
func collectText(n *html.Node, skip func(*html.Node) bool) string {
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
			if skip != nil && skip(n) {
				return
			}
			if htmltext.Block(n.DataAtom) {
				b.WriteByte(' ')
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
		if n.Type == html.ElementNode && htmltext.Block(n.DataAtom) {
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
	return app.Shorten(s, maxTitleRunes)
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
