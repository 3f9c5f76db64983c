package e2e_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/queue"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
	"github.com/morningdeck/morningdeck/views"
)

// lanListener makes every connection look as if it came from another machine on the LAN: the
// tests can only listen on loopback, where the app sends its answers uncompressed.
type lanListener struct{ net.Listener }

func (l lanListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return lanConn{c}, nil
}

type lanConn struct{ net.Conn }

func (lanConn) RemoteAddr() net.Addr { return &net.TCPAddr{IP: net.IPv4(192, 168, 1, 23), Port: 50111} }

// TestBrowserCompressed: a browser on another machine gets the pages, the stylesheet and the
// icon sprite gzip-compressed, and they work as they do uncompressed: the Sources page lists
// its rows, styled, with its icons drawn; going back to a page revalidates with the weak ETag.
func TestBrowserCompressed(t *testing.T) {
	db := sqlitetest.New(t)
	ctx := context.Background()
	q := queue.NewFetchQueue(queue.FetchQueueOptions{Store: db, Capacity: 1000})
	sources := &app.Sources{Store: db, Queue: q}
	for i := range 40 {
		src := &app.Source{UserID: 1, Type: app.SourceRSS, URL: fmt.Sprintf("https://s%02d.example/feed", i), Name: fmt.Sprintf("Source %02d", i), RefreshIntervalMinutes: 30}
		if err := db.CreateSource(ctx, src, nil); err != nil {
			t.Fatal(err)
		}
		started, err := db.StartFetch(ctx, src.ID, time.Minute)
		if err != nil || started == nil {
			t.Fatalf("start fetch: %v %v", started, err)
		}
		if _, err := db.FinishFetch(ctx, started, &app.FetchResult{Items: []app.Item{{GUID: "1", Title: fmt.Sprintf("Story %02d", i), Link: fmt.Sprintf("https://s%02d.example/1", i), Text: "x"}}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	h := views.New(views.Options{Sources: sources, Reading: &app.Reading{Store: db}, Version: "v-test"})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener = lanListener{ln}
	srv.Start()
	defer srv.Close()

	// The server's side: compressed to this peer.
	req, _ := http.NewRequest("GET", srv.URL+"/sources", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	res, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("the Sources page to a LAN peer: Content-Encoding %q", res.Header.Get("Content-Encoding"))
	}

	b := browser(t)
	var report string
	if err := chromedp.Run(b,
		chromedp.Navigate(srv.URL+"/sources"),
		chromedp.WaitVisible(`[data-testid=sources-table]`, chromedp.ByQuery),
		chromedp.Evaluate(`(() => {
  const problems = [];
  const rows = document.querySelectorAll('[data-testid=source-row]').length;
  if (rows !== 40) problems.push(rows + ' rows');
  const nav = performance.getEntriesByType('navigation')[0];
  if (!(nav.encodedBodySize > 0 && nav.encodedBodySize * 5 < nav.decodedBodySize)) problems.push('page not compressed: ' + nav.encodedBodySize + ' of ' + nav.decodedBodySize + ' bytes');
  let seen = 0; // the stylesheet and the icon sprite; the favicon (257 bytes) is too short to compress
  for (const r of performance.getEntriesByType('resource')) {
    if (/\/(app\.[0-9a-f]+\.css|icons\.[0-9a-f]+\.svg)$/.test(new URL(r.name).pathname)) {
      seen++;
      if (!(r.encodedBodySize < r.decodedBodySize)) problems.push(r.name + ' not compressed: ' + r.encodedBodySize + ' of ' + r.decodedBodySize);
    }
  }
  if (seen !== 2) problems.push(seen + ' of the stylesheet and the sprite loaded');
  const badge = document.querySelector('[data-testid=status-badge]');
  if (getComputedStyle(badge).borderRadius === '0px') problems.push('the stylesheet is not applied');
  const icon = badge.querySelector('svg.i');
  if (!icon || icon.querySelector('use').getBBox().width === 0) problems.push('the status icon is not drawn');
  if (getComputedStyle(icon).stroke === 'none') problems.push('the icon has no stroke');
  return problems.join('; ');
})()`, &report),
	); err != nil {
		t.Fatal(err)
	}
	if report != "" {
		t.Fatal(report)
	}
	// The live list (which htmx polls) asked again is revalidated with its weak ETag: a 304,
	// and the browser shows what it has.
	var again string
	if err := chromedp.Run(b,
		chromedp.Navigate(srv.URL+"/fragments/sources"),
		chromedp.Reload(),
		chromedp.Evaluate(`(() => {
  const nav = performance.getEntriesByType('navigation')[0];
  return document.querySelectorAll('[data-testid=source-row]').length + ' ' + nav.type + ' ' + (nav.transferSize < nav.encodedBodySize ? 'revalidated' : 'sent again: ' + nav.transferSize + ' bytes');
})()`, &again),
	); err != nil {
		t.Fatal(err)
	}
	if again != "40 reload revalidated" {
		t.Fatalf("the live list reloaded: %q", again)
	}
}
