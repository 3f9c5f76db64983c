package feeds_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/feeds"
)

func mailItem(t *testing.T, name string) app.Item {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "mail", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	it, err := feeds.MailItem(f, time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatalf("MailItem(%s): %v", name, err)
	}
	return it
}

// TestMailItem turns real-shaped newsletters into items: title, author, sender, date, GUID,
// unsubscribe link, content and text, with their charsets and transfer encodings decoded.
func TestMailItem(t *testing.T) {
	for _, tc := range []struct {
		file, title, author, sender, guid, unsubscribe, link string
		date                                                 time.Time
		contains, text                                       []string
		absent                                               []string
	}{
		{file: "html-only.eml", title: "☕ Coffee, chips and the Fed", author: "Morning Brew", sender: "crew@morningbrew.example",
			guid: "20261126110000.5f3a@mail.morningbrew.example", unsubscribe: "https://mail.morningbrew.example/unsubscribe?u=123&l=abc",
			link:     "https://www.morningbrew.example/daily/issues/coffee-chips-fed?utm_source=newsletter",
			date:     time.Date(2026, 11, 26, 11, 0, 0, 0, time.UTC),
			contains: []string{"<h1>Good morning.</h1>", `src="https://www.morningbrew.example/images/chart.png"`, "Coffee prices rose"},
			text:     []string{"The Federal Reserve held rates steady", "Brazil's harvest"},
			absent: []string{"<script", "document.cookie", "<form", "collect.morningbrew.example", "<input", "onclick", "<iframe",
				"t.morningbrew.example", "Preheader", "<style", "font-family", "Tell us what you think", "View in browser"}},
		{file: "alternative-qp.eml", title: "The AI Unbundling — and what comes next", author: "Stratechery by Ben", sender: "email@stratechery.example",
			guid: "CAF=stratechery-2026-11-25@stratechery.example", unsubscribe: "https://stratechery.example/unsubscribe/abc",
			date:     time.Date(2026, 11, 25, 13, 15, 42, 0, time.UTC),
			contains: []string{"<h2>The AI Unbundling — and what comes next</h2>", "café owners and integrators", `href="https://stratechery.example/2026/the-ai-unbundling"`, `rel="nofollow noopener"`, "full article"},
			text:     []string{"café owners and integrators, says the full article."}},
		{file: "latin1.eml", title: "Résumé de la semaine à Paris", author: "Le Café du Matin", sender: "lettre@cafe.example",
			guid: "lettre-2026-48@cafe.example", date: time.Date(2026, 11, 24, 6, 30, 0, 0, time.UTC),
			contains: []string{"La fête des lumières commence à Lyon le 8 décembre.", `<a href="https://cafe.example/lettre/48"`, "À bientôt."},
			text:     []string{"Bonjour, La fête des lumières"}},
		{file: "related-cid.eml", title: "Go 1.27 is out", author: "Golang Weekly", sender: "peter@golangweekly.example",
			guid: "gw-600@golangweekly.example", date: time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC),
			contains: []string{"<h1>Weekly Go News</h1>", "<b>iterators over maps</b>", `href="https://golangweekly.example/issues/600"`},
			text:     []string{"Go 1.27 is out with iterators over maps"},
			absent:   []string{"cid:", "<img", "PNG"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			it := mailItem(t, tc.file)
			if it.Title != tc.title {
				t.Errorf("title %q, want %q", it.Title, tc.title)
			}
			if it.Author != tc.author {
				t.Errorf("author %q, want %q", it.Author, tc.author)
			}
			if got, _ := it.Extra[app.ExtraSender].(string); got != tc.sender {
				t.Errorf("sender %q, want %q", got, tc.sender)
			}
			if it.GUID != tc.guid {
				t.Errorf("guid %q, want %q", it.GUID, tc.guid)
			}
			if got, _ := it.Extra[app.ExtraUnsubscribe].(string); got != tc.unsubscribe {
				t.Errorf("unsubscribe %q, want %q", got, tc.unsubscribe)
			}
			if it.Link != tc.link {
				t.Errorf("link %q, want %q", it.Link, tc.link)
			}
			if it.PublishedAt == nil || !it.PublishedAt.Equal(tc.date) {
				t.Errorf("date %v, want %v", it.PublishedAt, tc.date)
			}
			for _, s := range tc.contains {
				if !strings.Contains(it.CleanContent, s) {
					t.Errorf("content lacks %q:\n%s", s, it.CleanContent)
				}
			}
			for _, s := range tc.text {
				if !strings.Contains(it.Text, s) {
					t.Errorf("text lacks %q:\n%s", s, it.Text)
				}
			}
			for _, s := range tc.absent {
				if strings.Contains(it.CleanContent, s) {
					t.Errorf("content keeps %q:\n%s", s, it.CleanContent)
				}
			}
			if strings.ContainsRune(it.CleanContent+it.Title+it.Author, '\uFFFD') {
				t.Errorf("a character was not decoded: %q / %q", it.Title, it.CleanContent)
			}
		})
	}
}

// TestMailItemBrokenMIME: a message whose boundary never closes, with an unknown charset and
// transfer encoding and no readable date, still becomes an item from what can be read.
func TestMailItemBrokenMIME(t *testing.T) {
	it := mailItem(t, "broken-mime.eml")
	if it.Title != "Boundary never closes" || it.GUID != "broken-1@broken.example" {
		t.Errorf("title %q guid %q", it.Title, it.GUID)
	}
	if !strings.Contains(it.Text, "harvest") {
		t.Errorf("the readable part was lost: %q", it.Text)
	}
	// No readable Date: the server's date of the message.
	if it.PublishedAt == nil || !it.PublishedAt.Equal(time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)) {
		t.Errorf("date %v, want the received date", it.PublishedAt)
	}
}
