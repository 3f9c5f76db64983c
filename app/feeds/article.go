package feeds

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	readability "codeberg.org/readeck/go-readability/v2"
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
	resp, err := f.get(ctx, pageURL, acceptHTML, "", "")
	if err != nil {
		return nil, err
	}
	if !looksHTML(resp.body) && !hasMarkup(resp.body) {
		return nil, &Error{Kind: KindParse, Message: "The link does not lead to a web page."}
	}
	_, cs := resp.contentType()
	parser := readability.NewParser()
	art, err := parser.Parse(bytes.NewReader(htmlToUTF8(resp.body, cs)), resp.finalURL)
	if err != nil {
		return nil, &Error{Kind: KindParse, Message: "The page's article could not be extracted.", Err: err}
	}
	var h, t strings.Builder
	if err := art.RenderHTML(&h); err != nil {
		return nil, &Error{Kind: KindParse, Message: "The page's article could not be extracted.", Err: err}
	}
	if err := art.RenderText(&t); err != nil {
		return nil, &Error{Kind: KindParse, Message: "The page's article could not be extracted.", Err: err}
	}
	return &Article{Title: PlainText(art.Title()), HTML: Sanitize(h.String(), resp.finalURL.String()), Text: collapseSpace(t.String())}, nil
}
