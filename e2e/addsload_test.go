package e2e_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestConcurrentHostileAdds (issue 27, N1) measures the server's peak RSS while 40 requests
// at once add a source whose address serves a ~10 MB hostile feed (each from a server of its
// own, so that the per-host limit does not hold them back): the bodies and their parses share
// the fetcher's slots, and a request that gets none within a few seconds is answered 429. It
// runs on demand (a measurement, not a unit test):
//
//	MORNINGDECK_ADDS_LOAD=1 go test -count=1 -run '^TestConcurrentHostileAdds$' -v ./e2e/
//
// MORNINGDECK_ADDS_LOAD_SHAPE picks the feed: "tiny" (10 MB of ~330,000 tiny items, the
// default), "big" (one 5 MB item), "mixed" (either, by turns). It fails when an add is
// answered other than 201 or 429, or the peak RSS (VmHWM) passes 150 MB.
func TestConcurrentHostileAdds(t *testing.T) {
	if os.Getenv("MORNINGDECK_ADDS_LOAD") == "" {
		t.Skip("a measurement run on demand: MORNINGDECK_ADDS_LOAD=1 go test -run '^TestConcurrentHostileAdds$' -v ./e2e/")
	}
	const n = 40
	shape := os.Getenv("MORNINGDECK_ADDS_LOAD_SHAPE")
	feeds := map[string][]byte{"tiny": hostileTinyItems(), "big": hostileBigItem()}
	var urls []string
	for i := range n {
		body := feeds["tiny"]
		if shape == "big" || shape == "mixed" && i%2 == 1 {
			body = feeds["big"]
		}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/rss+xml")
			http.ServeContent(w, r, "feed.xml", time.Time{}, bytes.NewReader(body))
		}))
		defer srv.Close()
		urls = append(urls, srv.URL+"/feed.xml")
	}

	base, cmd := startServer(t, t.TempDir())
	pid := cmd.Process.Pid
	before := loadProcKB(pid, "VmHWM")
	began := time.Now()
	codes := make([]int, n)
	var wg sync.WaitGroup
	for i, u := range urls {
		wg.Go(func() {
			res, err := http.Post(base+"api/sources", "application/json", strings.NewReader(`{"url":"`+u+`"}`))
			if err != nil {
				t.Errorf("add %d: %v", i, err)
				return
			}
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			codes[i] = res.StatusCode
			if res.StatusCode == http.StatusTooManyRequests && res.Header.Get("Retry-After") == "" {
				t.Errorf("add %d: 429 without Retry-After: %s", i, b)
			}
			if res.StatusCode != http.StatusCreated && res.StatusCode != http.StatusTooManyRequests {
				t.Errorf("add %d: %d %s", i, res.StatusCode, b)
			}
		})
	}
	wg.Wait()
	took := time.Since(began)
	hwm := loadProcKB(pid, "VmHWM")
	created, busy := 0, 0
	for _, c := range codes {
		switch c {
		case http.StatusCreated:
			created++
		case http.StatusTooManyRequests:
			busy++
		}
	}
	t.Logf("%d concurrent adds of %q hostile feeds: %d answered 201, %d answered 429, in %v; peak RSS (VmHWM) %d MiB (%d MiB at start)",
		n, shape, created, busy, took.Round(100*time.Millisecond), hwm>>10, before>>10)
	if hwm > 150<<10 {
		t.Errorf("peak RSS %d MiB, want at most 150 MB", hwm>>10)
	}
}

// hostileTinyItems is a 10 MB RSS feed of tiny items (about 330,000).
func hostileTinyItems() []byte {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0"?><rss version="2.0"><channel><title>Tiny</title><link>https://example.com/</link>`)
	for i := 0; b.Len() < 10<<20-100; i++ {
		fmt.Fprintf(&b, "<item><guid>%d</guid></item>", i)
	}
	b.WriteString("</channel></rss>")
	return b.Bytes()
}

// hostileBigItem is an RSS feed of one 5 MB item of markup.
func hostileBigItem() []byte {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0"?><rss version="2.0"><channel><title>Big</title><link>https://example.com/</link><item><title>Big</title><link>https://example.com/big</link><description>`)
	p := "&lt;p&gt;&lt;a href=&quot;/x&quot;&gt;word&lt;/a&gt; text &lt;b&gt;bold&lt;/b&gt;&lt;/p&gt;"
	for b.Len() < 5<<20 {
		b.WriteString(p)
	}
	b.WriteString("</description></item></channel></rss>")
	return b.Bytes()
}
