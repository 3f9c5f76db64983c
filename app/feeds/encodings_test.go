package feeds_test

import (
	"bytes"
	"context"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	"golang.org/x/text/encoding/unicode/utf32"

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

// stripDeclarations removes every charset declaration of a document: the XML prolog's
// encoding and the HTML meta charset.
func stripDeclarations(b []byte) []byte {
	b = regexp.MustCompile(`(?i)\sencoding\s*=\s*["'][^"']*["']`).ReplaceAll(b, nil)
	b = regexp.MustCompile(`(?i)<meta[^>]*charset[^>]*>`).ReplaceAll(b, nil)
	return b
}

// TestUndeclaredLegacyCharsets: every legacy-charset file of the encodings corpus, stripped of
// its declarations and served without a charset, still reads right (issue 15: 0/8 before).
func TestUndeclaredLegacyCharsets(t *testing.T) {
	dir := corpusDir(t, "encodings")
	f := feeds.New(feeds.Options{})
	legacy, right := 0, 0
	for _, c := range corpusEncodings {
		body := readFile(t, filepath.Join(dir, c.file))
		if utf8.Valid(body) {
			continue
		}
		legacy++
		ct := "application/xml"
		typ := app.SourceRSS
		if strings.HasSuffix(c.file, ".html") {
			ct, typ = "text/html", app.SourceWeb
		}
		srv := serveBytes(t, ct, stripDeclarations(body))
		res := fetch(t, f, srv.URL+"/"+c.file, typ)
		ok := res.Title == c.title
		for _, it := range res.Items {
			for _, m := range mojibake {
				if strings.Contains(it.Title, m) {
					ok = false
				}
			}
		}
		if !ok {
			t.Errorf("%s undeclared: title %q, want %q", c.file, res.Title, c.title)
			continue
		}
		right++
	}
	if legacy < 8 {
		t.Fatalf("only %d legacy-charset files in the corpus", legacy)
	}
	t.Logf("%d of %d undeclared legacy-charset files read right", right, legacy)

	// East Asian charsets, which the corpus lacks: encoded here.
	for _, c := range []struct {
		name  string
		enc   encoding.Encoding
		title string
	}{
		{"Shift_JIS", japanese.ShiftJIS, "東京の天気予報、今日は晴れのち曇りでしょう"},
		{"EUC-JP", japanese.EUCJP, "東京の天気予報、今日は晴れのち曇りでしょう"},
		{"EUC-KR", korean.EUCKR, "서울의 오늘 날씨는 맑고 따뜻하겠습니다"},
		{"GBK", simplifiedchinese.GBK, "北京今天天气晴朗，气温适宜，适合出行"},
		{"Big5", traditionalchinese.Big5, "臺北今天天氣晴朗，氣溫適宜，適合出門"},
		{"KOI8-R", charmap.KOI8R, "Погода в Москве сегодня солнечная"},
		{"Windows-1251", charmap.Windows1251, "Погода в Москве сегодня солнечная"},
		{"Windows-1252", charmap.Windows1252, "Crème brûlée à la française – “déjà vu”"},
	} {
		doc := `<?xml version="1.0"?><rss version="2.0"><channel><title>` + c.title + `</title><item><title>` + c.title + `</title><link>https://e.example/1</link></item></channel></rss>`
		enc, err := c.enc.NewEncoder().String(doc)
		if err != nil {
			t.Fatal(err)
		}
		srv := serveBytes(t, "application/rss+xml", []byte(enc))
		if res := fetch(t, f, srv.URL, app.SourceRSS); res.Title != c.title {
			t.Errorf("%s undeclared: title %q, want %q", c.name, res.Title, c.title)
		}
	}
}

// TestUTF8NeverSniffed: no UTF-8 document of the corpora changes in decoding (it never reaches
// the sniffer, which is only asked about bytes with no UTF-8 in them).
func TestUTF8NeverSniffed(t *testing.T) {
	var files []string
	for _, sub := range []string{"feeds", "encodings", "feedparser"} {
		d := corpusDir(t, sub)
		_ = filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() {
				files = append(files, p)
			}
			return nil
		})
	}
	utf8Files, changed := 0, 0
	for _, p := range files {
		b := readFile(t, p)
		if !utf8.Valid(b) || !hasNonASCII(b) || bytes.Contains(b, []byte{0xC2, 0x80}) {
			continue
		}
		utf8Files++
		doc := `<?xml version="1.0"?><rss version="2.0"><channel><title>T</title><item><title><![CDATA[` + strings.ReplaceAll(string(b), "]]>", "") + `]]></title><link>https://e.example/1</link></item></channel></rss>`
		srv := serveBytes(t, "application/rss+xml", []byte(doc))
		res, err := feeds.New(feeds.Options{}).Fetch(context.Background(), feeds.Request{URL: srv.URL})
		if err != nil || len(res.Items) == 0 {
			continue
		}
		for _, m := range mojibake[1:] {
			if strings.Contains(res.Items[0].Title, m) && !strings.Contains(string(b), m) {
				changed++
				t.Errorf("%s: mojibake %q after decoding", p, m)
				break
			}
		}
	}
	t.Logf("%d UTF-8 files with non-ASCII text, %d mis-decoded", utf8Files, changed)
	if utf8Files < 30 {
		t.Fatalf("only %d UTF-8 files found", utf8Files)
	}
}

func hasNonASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return true
		}
	}
	return false
}

func TestUTF32XML11AndC1(t *testing.T) {
	f := feeds.New(feeds.Options{})
	doc := `<?xml version="1.0" encoding="UTF-32"?><rss version="2.0"><channel><title>Grüße 東京</title></channel></rss>`
	for name, enc := range map[string]encoding.Encoding{
		"UTF-32LE": utf32.UTF32(utf32.LittleEndian, utf32.ExpectBOM), "UTF-32BE": utf32.UTF32(utf32.BigEndian, utf32.ExpectBOM),
	} {
		b, _ := enc.NewEncoder().String(doc)
		srv := serveBytes(t, "application/xml", []byte(b))
		if res := fetch(t, f, srv.URL, app.SourceRSS); res.Title != "Grüße 東京" {
			t.Errorf("%s: title %q", name, res.Title)
		}
	}
	srv := serveBytes(t, "application/xml", []byte(`<?xml version="1.1" encoding="utf-8"?><rss version="2.0"><channel><title>Eleven</title><item><title>One</title><link>https://e.example/1</link></item></channel></rss>`))
	if res := fetch(t, f, srv.URL, app.SourceRSS); res.Title != "Eleven" || len(res.Items) != 1 {
		t.Errorf("XML 1.1: %+v", res)
	}
	if det, err := f.Detect(context.Background(), srv.URL); err != nil || det.Type != app.SourceRSS {
		t.Errorf("XML 1.1 detected as %+v, %v", det, err)
	}
	srv = serveBytes(t, "application/xml", []byte("<rss version=\"2.0\"><channel><title>C1</title><item><title>don\u0092t \u0093quote\u0094 \u0080 5 \u0096 dash</title><link>https://e.example/1</link></item></channel></rss>"))
	if res := fetch(t, f, srv.URL, app.SourceRSS); res.Items[0].Title != "don’t “quote” € 5 – dash" {
		t.Errorf("C1 controls: %q", res.Items[0].Title)
	}
}
