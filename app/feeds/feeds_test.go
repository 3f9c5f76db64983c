package feeds_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/feeds"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

const corpus = "../../testdata/corpus"

// corpusDir is a folder of the test corpus the repository carries (testdata/corpus).
func corpusDir(t *testing.T, sub string) string {
	t.Helper()
	d := filepath.Join(corpus, sub)
	if _, err := os.Stat(d); err != nil {
		t.Fatalf("the test corpus %s is missing (%v): it is part of the repository", sub, err)
	}
	return d
}

// serveBytes serves body with the given Content-Type at every path.
func serveBytes(t *testing.T, contentType string, body []byte) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func fetch(t *testing.T, f *feeds.Fetcher, url string, typ app.SourceType) *feeds.Result {
	t.Helper()
	res, err := f.Fetch(context.Background(), feeds.Request{URL: url, Type: typ})
	if err != nil {
		t.Fatalf("Fetch %s: %v", url, err)
	}
	return res
}

func contentType(name string) string {
	switch {
	case strings.HasSuffix(name, ".json"):
		return "application/feed+json"
	case strings.HasSuffix(name, ".html"):
		return "text/html"
	}
	return "application/xml"
}

// The feedjira corpus: every feed ingests, with as many items as it has entries.
// Counts were taken by counting <item>/<entry> elements and JSON Feed items in each file;
// no entry in the corpus is legitimately skipped or a duplicate, so the counts are the raw
// ones. Notes say where ingestion needs a repair.
var corpusFeeds = []struct {
	file  string
	items int
	note  string
}{
	{"AmazonWebServicesBlog.xml", 10, ""},
	{"AtomEscapedHTMLInPreTag.xml", 1, ""},
	{"AtomFeedWithSpacesAroundEquals.xml", 1, ""},
	{"AtomWithITunesInCDATA.xml", 1, ""},
	{"CRE.xml", 30, ""},
	{"DuplicateContentAtomFeed.xml", 10, "the Atom feed is wrapped in an XHTML page: the feed element is cut out"},
	{"FeedBurnerUrlNoAlternate.xml", 1, ""},
	{"FeedBurnerXHTML.xml", 10, ""},
	{"FeedjiraBlog.xml", 1, ""},
	{"GiantRobotsSmashingIntoOtherGiantRobots.xml", 3, ""},
	{"GoogleDocsList.xml", 2, ""},
	{"HREFConsideredHarmful.xml", 10, ""},
	{"HuffPostCanada.xml", 2, ""},
	{"ITunesWithSingleQuotedAttributes.xml", 3, "an <itunes:category> left open would swallow the items: closed before the first <item>"},
	{"ITunesWithSpacesInAttributes.xml", 3, ""},
	{"InvalidDateFormat.xml", 2, "truncated (no </rss>): the open elements are closed; a bad dc:date falls back to pubDate"},
	{"PaulDixExplainsNothing.xml", 5, ""},
	{"PaulDixExplainsNothingAlternate.xml", 5, ""},
	{"PaulDixExplainsNothingWFW.xml", 5, ""},
	{"Permalinks.xml", 4, "no <link>s: a guid is the link unless isPermaLink=\"false\""},
	{"RSSWithComments.xml", 30, ""},
	{"SamRuby.xml", 20, "relative links resolve against the feed's address"},
	{"TechCrunch.xml", 20, ""},
	{"TenderLovemaking.xml", 10, ""},
	{"TrotterCashionHome.xml", 14, ""},
	{"TypePadNews.xml", 10, ""},
	{"a10.xml", 5, ""},
	{"atom_simple_single_entry.xml", 1, ""},
	{"atom_simple_single_entry_link_self.xml", 1, ""},
	{"atom_with_link_tag_for_url_unmarked.xml", 1, ""},
	{"google_alerts_atom.xml", 20, ""},
	{"itunes.xml", 3, ""},
	{"itunes_feedburner.xml", 3, ""},
	{"json_feed.json", 20, ""},
	{"json_feed_with_escaped_uris.json", 30, ""},
	{"pet_atom.xml", 10, ""},
	{"youtube_atom.xml", 15, ""},
}

// Six files of the corpus are not feeds but the HTML of the first entry of another one
// (feedjira's expected values). They are checked against that entry's content.
var corpusFragments = []struct {
	file, feed, snippet string
}{
	{"AmazonWebServicesBlogFirstEntryContent.xml", "AmazonWebServicesBlog.xml", "Late last year an entrepreneur from Turkey visited me at Amazon HQ in Seattle."},
	{"HREFConsideredHarmfulFirstEntry.xml", "HREFConsideredHarmful.xml", "There's lots to like about Google's new web browser, Chrome, which was released today."},
	{"PaulDixExplainsNothingFirstEntryContent.xml", "PaulDixExplainsNothing.xml", "Last week I released the first version of a SAX based XML parsing library called SAX-Machine."},
	{"TechCrunchFirstEntry.xml", "TechCrunch.xml", "which offers consumers a way to review and rate doctors, contractors and service companies on the Web"},
	{"TechCrunchFirstEntryDescription.xml", "TechCrunch.xml", "which offers consumers a way to review and rate doctors, contractors and service companies on the Web"},
	{"TenderLovemakingFirstEntry.xml", "TenderLovemaking.xml", "I totally forgot to talk about Nokogiri::Slop() feature that was added."},
}

func TestFetchCorpusFeeds(t *testing.T) {
	dir := corpusDir(t, "feeds")
	listed := map[string]bool{"README.md": true, "LICENSE.feedjira": true}
	for _, c := range corpusFeeds {
		listed[c.file] = true
	}
	for _, c := range corpusFragments {
		listed[c.file] = true
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !listed[e.Name()] {
			t.Errorf("corpus file %s is in no table", e.Name())
		}
	}

	f := feeds.New(feeds.Options{})
	for _, c := range corpusFeeds {
		t.Run(c.file, func(t *testing.T) {
			srv := serveBytes(t, contentType(c.file), readFile(t, filepath.Join(dir, c.file)))
			res := fetch(t, f, srv.URL+"/"+c.file, app.SourceRSS)
			if len(res.Items) != c.items {
				t.Fatalf("got %d items, want %d (%s)", len(res.Items), c.items, c.note)
			}
			guids := map[string]bool{}
			for _, it := range res.Items {
				if it.GUID == "" || it.Title == "" {
					t.Errorf("item without GUID or title: %+v", it)
				}
				if guids[it.GUID] {
					t.Errorf("duplicate GUID %s", it.GUID)
				}
				guids[it.GUID] = true
				if it.Link != "" && !strings.HasPrefix(it.Link, "http://") && !strings.HasPrefix(it.Link, "https://") {
					t.Errorf("link %q is not absolute", it.Link)
				}
				if strings.Contains(it.CleanContent, "<script") || strings.Contains(strings.ToLower(it.CleanContent), "javascript:") || strings.Contains(it.CleanContent, "onclick") {
					t.Errorf("unsafe CleanContent in %s: %.200s", it.GUID, it.CleanContent)
				}
				if strings.ContainsAny(it.Title, "<>") && strings.Contains(it.Title, "</") {
					t.Errorf("title has tags: %q", it.Title)
				}
			}
		})
	}
}

func TestFetchCorpusSpecificFields(t *testing.T) {
	dir := corpusDir(t, "feeds")
	f := feeds.New(feeds.Options{})
	get := func(t *testing.T, file string) (*feeds.Result, string) {
		srv := serveBytes(t, contentType(file), readFile(t, filepath.Join(dir, file)))
		return fetch(t, f, srv.URL+"/"+file, app.SourceRSS), srv.URL
	}

	t.Run("an RSS guid without isPermaLink=false is the link", func(t *testing.T) {
		res, _ := get(t, "Permalinks.xml")
		want := []string{"", "http://example.com/2", "http://example.com/3", "http://example.com/4"}
		for i, it := range res.Items {
			if it.Link != want[i] {
				t.Errorf("item %d link %q, want %q", i, it.Link, want[i])
			}
		}
		if res.Items[3].GUID != "http://example.com/5" {
			t.Errorf("guid %q", res.Items[3].GUID)
		}
	})

	t.Run("relative links resolve against the feed's address", func(t *testing.T) {
		res, base := get(t, "SamRuby.xml")
		if got := res.Items[0].Link; got != base+"/blog/2013/01/30/Plex" {
			t.Errorf("link %q", got)
		}
	})

	t.Run("a garbage date is nil and a valid one is kept", func(t *testing.T) {
		res, _ := get(t, "InvalidDateFormat.xml")
		for _, it := range res.Items {
			if it.PublishedAt == nil || it.PublishedAt.Year() != 2017 {
				t.Errorf("%s: PublishedAt %v", it.Title, it.PublishedAt)
			}
		}
	})

	t.Run("titles are plain text with entities decoded", func(t *testing.T) {
		res, _ := get(t, "TechCrunch.xml")
		if got := res.Items[0].Title; got != "Angie’s List Sets Price Range IPO At $11 To $13 Per Share; Valued At Over $600M" {
			t.Errorf("title %q", got)
		}
		if res.Items[0].Author != "Leena Rao" || res.Items[0].PublishedAt == nil {
			t.Errorf("author %q, published %v", res.Items[0].Author, res.Items[0].PublishedAt)
		}
	})

	t.Run("JSON Feed items have their fields", func(t *testing.T) {
		res, _ := get(t, "json_feed.json")
		it := res.Items[0]
		if res.Title != "inessential.com" || it.GUID != "http://inessential.com/2017/06/02/james_dempsey_and_the_breakpoints_benefi" ||
			it.Link != it.GUID || it.PublishedAt == nil || !strings.Contains(it.CleanContent, `rel="nofollow noopener"`) {
			t.Errorf("got %q %+v", res.Title, it)
		}
	})
}

func TestFetchCorpusFragments(t *testing.T) {
	dir := corpusDir(t, "feeds")
	f := feeds.New(feeds.Options{})
	for _, c := range corpusFragments {
		t.Run(c.file, func(t *testing.T) {
			fragment := readFile(t, filepath.Join(dir, c.file))
			if got := feeds.PlainText(string(fragment)); !strings.Contains(got, c.snippet) {
				t.Fatalf("snippet not in the fragment: %.300s", got)
			}
			srv := serveBytes(t, contentType(c.feed), readFile(t, filepath.Join(dir, c.feed)))
			res := fetch(t, f, srv.URL+"/"+c.feed, app.SourceRSS)
			if got := feeds.PlainText(res.Items[0].CleanContent); !strings.Contains(got, c.snippet) {
				t.Errorf("first entry of %s lacks %q: %.300s", c.feed, c.snippet, got)
			}

			// Served as a feed, a fragment is refused with a parse error, not a panic.
			srv2 := serveBytes(t, "application/xml", fragment)
			_, err := f.Fetch(context.Background(), feeds.Request{URL: srv2.URL, Type: app.SourceRSS})
			assertKind(t, err, feeds.KindParse)
		})
	}
}

func TestFetchFeedTTLAndCacheHeaders(t *testing.T) {
	now := time.Date(2026, 2, 15, 12, 0, 0, 0, time.UTC)
	clock := sqlitetest.NewClock(now)
	feed := `<?xml version="1.0"?><rss version="2.0"><channel><title>T</title><link>https://example.com/</link><ttl>90</ttl>
<item><title>Future</title><link>https://example.com/a</link><pubDate>Mon, 01 Jan 2035 00:00:00 GMT</pubDate></item>
<item><title>Garbage date</title><link>https://example.com/b</link><pubDate>not a date</pubDate></item>
<item><title>Dup</title><link>https://example.com/c</link><guid>same</guid></item>
<item><title>Dup again</title><link>https://example.com/c</link><guid>same</guid></item>
<item><description>  </description></item>
<item><title>Rel</title><link>/rel?x=1</link><description>&lt;img src="/i.png" onerror="alert(1)"&gt;&lt;a href="page"&gt;p&lt;/a&gt;</description></item>
<item><title>Bad</title><link>javascript:alert(1)</link></item>
</channel></rss>`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=600")
		_, _ = w.Write([]byte(feed))
	}))
	defer srv.Close()
	f := feeds.New(feeds.Options{Clock: clock})
	res := fetch(t, f, srv.URL, app.SourceRSS)
	if res.CacheUntil == nil || !res.CacheUntil.Equal(now.Add(90*time.Minute)) {
		t.Errorf("CacheUntil %v, want ttl 90m (later than max-age 10m)", res.CacheUntil)
	}
	if res.SiteURL != "https://example.com/" || res.Title != "T" {
		t.Errorf("site %q title %q", res.SiteURL, res.Title)
	}
	titles := []string{}
	for _, it := range res.Items {
		titles = append(titles, it.Title)
	}
	if got := strings.Join(titles, ","); got != "Future,Garbage date,Dup,Rel,Bad" {
		t.Fatalf("items %s", got)
	}
	if p := res.Items[0].PublishedAt; p == nil || !p.Equal(now) {
		t.Errorf("future date not clamped: %v", p)
	}
	if res.Items[1].PublishedAt != nil {
		t.Errorf("garbage date parsed: %v", res.Items[1].PublishedAt)
	}
	rel := res.Items[3]
	if rel.Link != "https://example.com/rel?x=1" {
		t.Errorf("link %q", rel.Link)
	}
	if strings.Contains(rel.CleanContent, "onerror") || !strings.Contains(rel.CleanContent, `src="https://example.com/i.png"`) ||
		!strings.Contains(rel.CleanContent, `href="https://example.com/page"`) {
		t.Errorf("clean content %q", rel.CleanContent)
	}
	if res.Items[4].Link != "" {
		t.Errorf("javascript link kept: %q", res.Items[4].Link)
	}
}

func BenchmarkFetchCorpus(b *testing.B) {
	dir := filepath.Join(corpus, "feeds")
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	f := feeds.New(feeds.Options{PerHost: 8})
	for b.Loop() {
		for _, c := range corpusFeeds {
			if _, err := f.Fetch(context.Background(), feeds.Request{URL: srv.URL + "/" + c.file}); err != nil {
				b.Fatal(err)
			}
		}
	}
}
