package feeds_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/feeds"
)

// The Miniflux encodings corpus: text must come out right whatever the declarations say.
var corpusEncodings = []struct {
	file      string
	title     string // Result.Title
	itemTitle string // a title among the items ("" for none)
	items     int
}{
	{"encoding_ISO-8859-1.xml", "Golem.de", "Machine Learning: Von KI erstelltes Porträt für 432.500 US.Dollar versteigert", 40},
	{"encoding_WINDOWS-1251.xml", "iBash.Org.Ru", "Цитата #17703", 50},
	{"invalid-prolog.xml", "테스트 피드", "Café", 1},
	{"iso-8859-1-meta-after-1024.html", "Frédéric", "", 0},
	{"iso-8859-1.html", "Frédéric", "", 0},
	{"iso-8859-1.xml", "Café", "", 0},
	{"koi8r.xml", "Пример RSS ленты", "Вторая новость", 2},
	{"large_atom.xml", "Artificial truth", "Book review: Locksport - A Hacker’s Guide to Lockpicking, Impressioning, and Safe Cracking", 25},
	{"large_rss.xml", "Artificial truth", "Book review: Locksport - A Hacker’s Guide to Lockpicking, Impressioning, and Safe Cracking", 25},
	{"no_encoding_ISO-8859-1.xml", "Flux RSS du magazine de psychologie Le Cercle Psy", "La criminalité liée surtout à... l'ennui ?", 9},
	{"rdf_UTF8.xml", "heise online News", "OLED-TVs: Vorsichtsmaßnahmen gegen Einbrennen", 60},
	{"small_atom.xml", "Recent Commits to v2:main", "Parse podcast categories", 20},
	{"urdu_UTF8.xml", "BBC News اردو - پاکستان کے لیے امریکی امداد کی بہار و خزاں", "", 26},
	{"utf8-incorrect-prolog.xml", "테스트 피드", "Café", 1},
	{"utf8-meta-after-1024.html", "Frédéric", "", 0},
	{"utf8.html", "Café", "", 0},
	{"utf8.xml", "테스트 피드", "Café", 1},
	{"windows-1252-incorrect-prolog.xml", "Euro €", "", 0},
	{"windows-1252.xml", "Euro €", "", 0},
}

// mojibake are the marks of text decoded with the wrong charset.
var mojibake = []string{"\uFFFD", "Ã©", "Ã¨", "Ã¤", "Ã¶", "Ã¼", "Ã\u009f", "â‚¬", "â€™", "Ð¦", "Ð\u009f", "Ã", "Ð"}

func TestFetchEncodings(t *testing.T) {
	dir := corpusDir(t, "encodings")
	f := feeds.New(feeds.Options{})
	// Servers often send a charset that is wrong: the result must not depend on it.
	headers := map[string]string{"no charset in the header": "", "a wrong utf-8 charset in the header": "; charset=utf-8"}
	for _, c := range corpusEncodings {
		for name, param := range headers {
			t.Run(c.file+" with "+name, func(t *testing.T) {
				typ := app.SourceRSS
				if strings.HasSuffix(c.file, ".html") {
					typ = app.SourceWeb
				}
				srv := serveBytes(t, contentType(c.file)+param, readFile(t, filepath.Join(dir, c.file)))
				res := fetch(t, f, srv.URL+"/"+c.file, typ)
				if res.Title != c.title {
					t.Errorf("title %q, want %q", res.Title, c.title)
				}
				if len(res.Items) != c.items {
					t.Errorf("%d items, want %d", len(res.Items), c.items)
				}
				found := c.itemTitle == ""
				texts := []string{res.Title}
				for _, it := range res.Items {
					found = found || it.Title == c.itemTitle
					texts = append(texts, it.Title, it.Author, feeds.PlainText(it.CleanContent))
				}
				if !found {
					t.Errorf("no item titled %q", c.itemTitle)
				}
				for _, s := range texts {
					for _, m := range mojibake {
						if strings.Contains(s, m) {
							t.Errorf("mojibake %q in %.120q", m, s)
						}
					}
				}
			})
		}
	}
}

func TestFetchEncodingsContent(t *testing.T) {
	dir := corpusDir(t, "encodings")
	f := feeds.New(feeds.Options{})
	cases := []struct{ file, content string }{
		{"koi8r.xml", "Это тестовое описание с русскими символами"},
		{"encoding_WINDOWS-1251.xml", "ещё"},
	}
	for _, c := range cases {
		srv := serveBytes(t, "application/xml", readFile(t, filepath.Join(dir, c.file)))
		res := fetch(t, f, srv.URL, app.SourceRSS)
		all := ""
		for _, it := range res.Items {
			all += feeds.PlainText(it.CleanContent) + "\n"
		}
		if !strings.Contains(all, c.content) {
			t.Errorf("%s: content lacks %q: %.300s", c.file, c.content, all)
		}
	}
}

func TestFetchWrongOrMissingDeclarations(t *testing.T) {
	latin1 := "<?xml version=\"1.0\" encoding=\"utf-8\"?><rss version=\"2.0\"><channel><title>Caf\xe9 cr\xe8me</title></channel></rss>"
	strayByte := "<?xml version=\"1.0\" encoding=\"utf-8\"?><rss version=\"2.0\"><channel><title>Ελληνικά καφές \xff</title></channel></rss>"
	noProlog := "<rss version=\"2.0\"><channel><title>\xc0 la fran\xe7aise</title></channel></rss>"
	utf16 := "\xff\xfe" + utf16le(`<?xml version="1.0" encoding="UTF-16"?><rss version="2.0"><channel><title>Grüße</title></channel></rss>`)
	cases := []struct{ name, body, header, want string }{
		{"a prolog saying utf-8 over Latin-1 bytes", latin1, "application/xml", "Café crème"},
		{"a utf-8 feed with one stray byte, read as Windows-1252", strayByte, "application/xml", "Ελληνικά καφές ÿ"},
		{"no prolog and no header charset", noProlog, "application/xml", "À la française"},
		{"no prolog, charset from the header", "<rss version=\"2.0\"><channel><title>\xcf\xf0\xe8\xe2\xe5\xf2</title></channel></rss>", "text/xml; charset=windows-1251", "Привет"},
		{"UTF-16 with a BOM", utf16, "application/xml", "Grüße"},
	}
	f := feeds.New(feeds.Options{})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := serveBytes(t, c.header, []byte(c.body))
			if res := fetch(t, f, srv.URL, app.SourceRSS); res.Title != c.want {
				t.Errorf("title %q, want %q", res.Title, c.want)
			}
		})
	}
}

func utf16le(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteByte(byte(r))
		b.WriteByte(byte(r >> 8))
	}
	return b.String()
}
