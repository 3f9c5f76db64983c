package feeds

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	readability "codeberg.org/readeck/go-readability/v2"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/morningdeck/morningdeck/app"
)

// Article is the readable text of a web page.
type Article struct {
	Title string
	HTML  string // sanitized
	Text  string
}

// Article fetches a page, with the same limits as any fetch, and extracts its main text
// with readability.
func (f *Fetcher) Article(ctx context.Context, pageURL string) (a *Article, err error) {
	defer func() {
		if r := recover(); r != nil {
			a, err = nil, &Error{Kind: KindParse, Message: "The page's article could not be extracted.", Err: fmt.Errorf("panic: %v", r)}
		}
	}()
	resp, err := f.getPage(ctx, pageURL, acceptHTML, f.opts.MaxBodyBytes)
	if err != nil {
		return nil, err
	}
	defer resp.done()
	if !looksHTML(resp.body) && !hasMarkup(resp.body) {
		return nil, &Error{Kind: KindParse, Message: "The link does not lead to a web page."}
	}
	_, cs := resp.contentType()
	art, err := readWithin(ctx, trimPage(htmlToUTF8(resp.body, cs)), resp.finalURL)
	if err != nil {
		var fe *Error
		if errors.As(err, &fe) || ctx.Err() != nil {
			return nil, err
		}
		return nil, &Error{Kind: KindParse, Message: "The page's article could not be extracted.", Err: err}
	}
	var h, t strings.Builder
	if err := art.RenderHTML(&h); err != nil {
		return nil, &Error{Kind: KindParse, Message: "The page's article could not be extracted.", Err: err}
	}
	if err := art.RenderText(&t); err != nil {
		return nil, &Error{Kind: KindParse, Message: "The page's article could not be extracted.", Err: err}
	}
	_, clean := sanitizeContent(h.String(), resp.finalURL.String())
	return &Article{Title: app.Shorten(PlainText(art.Title()), maxTitleRunes), HTML: clean, Text: truncateUTF8(collapseSpace(t.String()), MaxContentBytes)}, nil
}

// Readability takes no context: once it works on a document it runs to the end, and its work
// grows with the elements times their depth (it reads each candidate's text, and scores up
// its ancestors). Measured on this project's 2-core machine: 40,000 flat elements took 0.6 s,
// 20,000 paragraphs under 100 levels of nesting 6 s, under 480 levels 20 s. So the page is
// parsed here, through the budget's reader (which stops the parse itself at the deadline),
// and weighed first: readability gets only a document of at most maxArticleElements elements
// whose depths add up to at most maxArticleWeight (a few seconds of its work at worst; a long
// real article has a few thousand elements some 15 deep). The HTML parser itself refuses
// nesting deeper than 512.
const (
	maxArticleElements = 60_000
	maxArticleWeight   = 600_000
)

// readWithin runs readability on a page under the parse budget: parsing stops at the
// deadline, the weight check bounds what comes after, and past the deadline the caller gets
// the error while readability finishes that bounded work in the background.
func readWithin(ctx context.Context, page []byte, pageURL *url.URL) (readability.Article, error) {
	bud := newBudget(ctx)
	doc, err := html.Parse(bud.reader(bytes.NewReader(page)))
	if bud.spent() {
		return readability.Article{}, bud.err("page")
	}
	if err != nil {
		if strings.Contains(err.Error(), "open stack of elements") {
			return readability.Article{}, &Error{Kind: KindParse, Err: err,
				Message: "This page is nested too deeply to extract its article: its elements go more than 512 levels deep."}
		}
		return readability.Article{}, err
	}
	if elements, weight := weigh(doc); elements > maxArticleElements {
		return readability.Article{}, &Error{Kind: KindParse, Message: fmt.Sprintf(
			"This page is too large to extract its article: it has %d elements, and we read pages of at most %d.", elements, maxArticleElements)}
	} else if weight > maxArticleWeight {
		return readability.Article{}, &Error{Kind: KindParse, Message: fmt.Sprintf(
			"This page is nested too deeply to extract its article: its %d elements lie %d levels deep on average.", elements, weight/max(elements, 1))}
	}
	type result struct {
		art readability.Article
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- result{err: fmt.Errorf("panic: %v", r)}
			}
		}()
		parser := readability.NewParser()
		parser.MaxElemsToParse = maxArticleElements
		art, err := parser.ParseAndMutate(doc, pageURL)
		done <- result{art, err}
	}()
	timer := time.NewTimer(time.Until(bud.deadline))
	defer timer.Stop()
	select {
	case r := <-done:
		return r.art, r.err
	case <-ctx.Done():
		return readability.Article{}, bud.err("page")
	case <-timer.C:
		return readability.Article{}, bud.err("page")
	}
}

// weigh counts the elements of a document and adds up their depths.
func weigh(doc *html.Node) (elements, weight int) {
	var walk func(n *html.Node, depth int)
	walk = func(n *html.Node, depth int) {
		if n.Type == html.ElementNode {
			elements++
			weight += depth
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, depth+1)
		}
	}
	walk(doc, 0)
	return elements, weight
}

// maxArticleBytes caps the markup readability reads, which takes some twenty times its input
// in memory (a 10 MiB page, 200 MiB).
const maxArticleBytes = 2 << 20

// trimPage cuts a page longer than maxArticleBytes down to it: scripts, styles, SVG,
// templates and comments go first (readability drops them anyway, and they are most of a
// big page), then whatever is past the limit.
func trimPage(b []byte) []byte {
	if len(b) <= maxArticleBytes {
		return b
	}
	z := html.NewTokenizer(bytes.NewReader(b))
	out := bytes.NewBuffer(make([]byte, 0, maxArticleBytes+4096))
	skip := 0 // depth in skipped elements
	for out.Len() < maxArticleBytes {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return out.Bytes()
		case html.CommentToken:
			continue
		case html.StartTagToken, html.EndTagToken:
			name, _ := z.TagName()
			switch atom.Lookup(name) {
			case atom.Script, atom.Style, atom.Svg, atom.Template, atom.Noscript:
				if tt == html.StartTagToken {
					skip++
				} else if skip > 0 {
					skip--
				}
				continue
			}
		}
		if skip == 0 {
			out.Write(z.Raw())
		}
	}
	return out.Bytes()
}
