package feeds_test

// Feed shapes from other readers' test suites (Miniflux's parsers, issue 28 item 13): each
// is read as those readers read it.

import (
	"strings"
	"testing"
)

// An Atom href written with spaces around it (Miniflux's atom_10 enclosure test): the link
// and the enclosure are trimmed as RSS's are, never kept as "…mp3%20%20".
func TestAtomHrefSpacesTrimmed(t *testing.T) {
	res := fetchBody(t, "application/atom+xml", `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>Example Feed</title><link href="  http://example.org/  "/>
<entry><title>Atom-Powered Robots Run Amok</title><id>urn:uuid:1225c695-cfb8-4ebb-aaaa-80da344efa6a</id>
<link href=" http://example.org/2003/12/13/atom03 "/>
<link rel="enclosure" type="audio/mpeg" length="1337" href="  http://www.example.org/myaudiofile.mp3  "/>
<updated>2003-12-13T18:30:02Z</updated><summary>Some text.</summary></entry>
<entry><title>Relative</title><id>2</id><link href="  /2003/12/14/relative  "/></entry>
</feed>`)
	if len(res.Items) != 2 {
		t.Fatalf("%d items", len(res.Items))
	}
	it := res.Items[0]
	if it.Link != "http://example.org/2003/12/13/atom03" {
		t.Errorf("link %q", it.Link)
	}
	if encs := it.Enclosures(); len(encs) != 1 || encs[0].URL != "http://www.example.org/myaudiofile.mp3" {
		t.Errorf("enclosures %+v", encs)
	}
	if res.SiteURL != "http://example.org/" {
		t.Errorf("site %q", res.SiteURL)
	}
	if got := res.Items[1].Link; got != "http://example.org/2003/12/14/relative" {
		t.Errorf("relative link %q", got)
	}
}

// JSON Feed titles with HTML entities (Miniflux's "Task &amp; Sub Tasks" and "I&#039;m"):
// the entities are decoded; what is not an entity stays as written ("<template>" too).
func TestJSONFeedTitleEntitiesDecoded(t *testing.T) {
	res := fetchBody(t, "application/feed+json", `{"version":"https://jsonfeed.org/version/1.1","title":"Tom &amp; Jerry&#039;s feed","home_page_url":"https://e.example/",
"items":[{"id":"1","title":"Task &amp; Sub Tasks","url":"https://e.example/1"},
{"id":"2","title":"I&#039;m &quot;here&quot;","url":"https://e.example/2"},
{"id":"3","title":"Templates: <template> &amp; <slot>","url":"https://e.example/3"},
{"id":"4","title":"AT&T, R&D and &amp","url":"https://e.example/4"}]}`)
	if got := titlesOf(res); got != `Task & Sub Tasks|I'm "here"|Templates: <template> & <slot>|AT&T, R&D and &` {
		t.Errorf("titles %q", got)
	}
	if res.Title != "Tom & Jerry's feed" {
		t.Errorf("feed title %q", res.Title)
	}
}

// Several authors are all kept, joined by commas (Miniflux joins them so): JSON Feed 1.1
// authors, Atom's repeated <author>, RSS's repeated dc:creator.
func TestSeveralAuthorsKept(t *testing.T) {
	for name, c := range map[string]struct{ ct, body string }{
		"JSON Feed": {"application/feed+json", `{"version":"https://jsonfeed.org/version/1.1","title":"J","items":[
{"id":"1","title":"T","url":"https://e.example/1","authors":[{"name":"Alice"},{"name":"Bob"},{"name":"Alice"}]}]}`},
		"Atom": {"application/atom+xml", `<feed xmlns="http://www.w3.org/2005/Atom"><title>A</title>
<entry><id>1</id><title>T</title><link href="https://e.example/1"/><author><name>Alice</name></author><author><name>Bob</name><email>bob@e.example</email></author></entry></feed>`},
		"RSS dc:creator": {"application/rss+xml", `<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel><title>R</title>
<item><title>T</title><link>https://e.example/1</link><dc:creator>Alice</dc:creator><dc:creator>Bob</dc:creator></item></channel></rss>`},
	} {
		res := fetchBody(t, c.ct, c.body)
		if len(res.Items) != 1 || res.Items[0].Author != "Alice, Bob" {
			t.Errorf("%s: authors %q", name, res.Items[0].Author)
		}
	}
	// A feed's several authors are its items' when they name none.
	res := fetchBody(t, "application/atom+xml", `<feed xmlns="http://www.w3.org/2005/Atom"><title>A</title><author><name>Ann</name></author><author><name>Ben</name></author>
<entry><id>1</id><title>T</title><link href="https://e.example/1"/></entry></feed>`)
	if res.Author != "Ann, Ben" || res.Items[0].Author != "Ann, Ben" {
		t.Errorf("feed authors %q, item %q", res.Author, res.Items[0].Author)
	}
}

// Atom 0.3 content in mode="base64" (Miniflux's atom_03 test) is shown decoded.
func TestAtom03Base64ContentDecoded(t *testing.T) {
	res := fetchBody(t, "application/atom+xml", `<?xml version="1.0" encoding="utf-8"?>
<feed version="0.3" xmlns="http://purl.org/atom/ns#"><title>dive into mark</title><link rel="alternate" type="text/html" href="http://diveintomark.org/"/><modified>2003-12-13T18:30:02Z</modified>
<entry><title>Atom 0.3 base64</title><link rel="alternate" type="text/html" href="http://diveintomark.org/2003/12/13/atom03"/><id>tag:diveintomark.org,2003:3.2397</id><issued>2003-12-13T08:29:29-04:00</issued><modified>2003-12-13T18:30:02Z</modified>
<content type="text/html" mode="base64">PHA+RGVjb2RlZCA8Yj5ib2R5PC9iPiBvZiBhbiBBdG9tIDAuMyBlbnRyeS48L3A+</content></entry>
<entry><title>Plain base64</title><link rel="alternate" type="text/html" href="http://diveintomark.org/2"/><id>2</id>
<summary type="text/plain" mode="base64">
SGVsbG8sIHdvcmxkIQ==
</summary></entry>
<entry><title>Mode only</title><link rel="alternate" href="http://diveintomark.org/3"/><id>3</id><content mode="base64">PHA+TW9kZSBvbmx5LjwvcD4=</content></entry>
<entry><title>Mode first</title><link rel="alternate" href="http://diveintomark.org/4"/><id>4</id><content mode='base64' type='text/html'>PHA+TW9kZSBmaXJzdC48L3A+</content></entry>
</feed>`)
	if len(res.Items) != 4 {
		t.Fatalf("%d items", len(res.Items))
	}
	if it := res.Items[0]; it.Text != "Decoded body of an Atom 0.3 entry." || !strings.Contains(it.CleanContent, "<b>body</b>") {
		t.Errorf("text %q, content %q", it.Text, it.CleanContent)
	}
	if it := res.Items[1]; it.Text != "Hello, world!" {
		t.Errorf("plain text %q", it.Text)
	}
	if it := res.Items[2]; it.Text != "Mode only." {
		t.Errorf("mode only: %q", it.Text)
	}
	if it := res.Items[3]; it.Text != "Mode first." {
		t.Errorf("mode first: %q", it.Text)
	}
}

// A JSON Feed item that carries only an id (Miniflux keeps it) is kept, untitled, under its
// id; an item with nothing at all is still dropped.
func TestJSONFeedItemWithOnlyAnID(t *testing.T) {
	res := fetchBody(t, "application/feed+json", `{"version":"https://jsonfeed.org/version/1","title":"J","home_page_url":"https://e.example/","items":[
{"id":"1234259"},{},{"id":"2","title":"Second","url":"https://e.example/2"}]}`)
	if len(res.Items) != 2 {
		t.Fatalf("%d items: %q", len(res.Items), titlesOf(res))
	}
	if it := res.Items[0]; it.GUID != "1234259" || it.Title != "Untitled" || it.Link != "" {
		t.Errorf("id-only item: guid %q title %q link %q", it.GUID, it.Title, it.Link)
	}
}
