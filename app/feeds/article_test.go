package feeds_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/app/feeds"
)

func TestArticle(t *testing.T) {
	t.Run("extracts the main text of a page and leaves navigation out", func(t *testing.T) {
		para := strings.Repeat("The river bridge will be rebuilt next spring after the council vote. ", 12)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write([]byte(`<html><head><title>Bridge</title></head><body><nav><a href="/">Home</a> <a href="/x">Sections and everything else</a></nav>
<article><h1>Bridge to be rebuilt</h1><p>` + para + `</p><p>` + para + `</p><script>alert(1)</script></article><footer>Copyright footer text</footer></body></html>`))
		}))
		defer srv.Close()
		a, err := feeds.New(feeds.Options{}).Article(context.Background(), srv.URL+"/bridge")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(a.Text, "The river bridge will be rebuilt") || strings.Contains(a.Text, "Sections and everything else") {
			t.Fatalf("text: %q", a.Text)
		}
		if strings.Contains(a.HTML, "<script") {
			t.Fatal("article HTML not sanitized")
		}
	})
	t.Run("a link that is not a page gives a readable error", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/pdf")
			_, _ = w.Write([]byte("%PDF-1.4 binary"))
		}))
		defer srv.Close()
		_, err := feeds.New(feeds.Options{}).Article(context.Background(), srv.URL)
		if err == nil || !strings.Contains(err.Error(), "not lead to a web page") {
			t.Fatalf("err = %v", err)
		}
	})
	// Readability cannot be stopped once it works: a hostile page must be refused before, with
	// a sentence that says why. Each of these held a worker for seconds to minutes before.
	t.Run("hostile pages end with a clear message instead of holding the worker", func(t *testing.T) {
		para := "<p>Some words, commas, and text that looks like an article paragraph of decent length.</p>"
		for _, c := range []struct{ name, page, want string }{
			{"nesting past the parser's limit", strings.Repeat("<div>a, b ", 5000), "its elements go more than 512 levels deep"},
			{"a huge DOM under deep nesting", strings.Repeat(`<div class="content">`, 480) + strings.Repeat(para, 20000), "levels deep on average"},
			{"a huge flat DOM", "<div>" + strings.Repeat("<span>a, b</span>", 100000), "it has 100005 elements, and we read pages of at most 60000"},
		} {
			t.Run(c.name, func(t *testing.T) {
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "text/html; charset=utf-8")
					_, _ = w.Write([]byte("<!doctype html><html><head><title>Hostile</title></head><body>" + c.page + "</body></html>"))
				}))
				defer srv.Close()
				_, err := feeds.New(feeds.Options{}).Article(context.Background(), srv.URL)
				var fe *feeds.Error
				if !errors.As(err, &fe) || fe.Kind != feeds.KindParse || !strings.Contains(fe.Message, c.want) {
					t.Fatalf("err = %v, want a parse error saying %q", err, c.want)
				}
			})
		}
	})
}
