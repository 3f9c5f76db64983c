package feeds

import (
	"context"
	"errors"

	"github.com/morningdeck/morningdeck/app"
)

// Adapter gives the app's services a Fetcher: app.FeedFetcher and app.ArticleFetcher.
type Adapter struct{ Fetcher *Fetcher }

var (
	_ app.FeedFetcher    = Adapter{}
	_ app.ArticleFetcher = Adapter{}
)

// FetchSource fetches and parses a source, conditional on its validators. A failed fetch is an
// *app.FetchError; an invalid request an *app.Error.
func (a Adapter) FetchSource(ctx context.Context, src *app.Source) (*app.FetchResult, error) {
	res, err := a.Fetcher.Fetch(ctx, Request{URL: src.URL, Type: src.Type, ETag: src.ETag, LastModified: src.LastModified})
	if err != nil {
		var fe *Error
		if errors.As(err, &fe) {
			return nil, &app.FetchError{Message: fe.Message, RetryAfter: fe.RetryAfter, Network: IsNetwork(err),
				HostPaused: fe.Kind == KindHostPaused, Err: err}
		}
		return nil, err
	}
	return &app.FetchResult{NotModified: res.NotModified, Title: res.Title, ETag: res.ETag, LastModified: res.LastModified,
		Items: res.Items, NextFetchAt: res.CacheUntil}, nil
}

// ArticleText is the readable text of a page.
func (a Adapter) ArticleText(ctx context.Context, url string) (string, error) {
	art, err := a.Fetcher.Article(ctx, url)
	if err != nil {
		return "", err
	}
	return art.Text, nil
}

// ArticleHTML is the readable article of a page, read on a reader's demand: its sanitized HTML
// and its plain text (app.ArticleReader). A failure is an app.FetchError that says why.
func (a Adapter) ArticleHTML(ctx context.Context, url string) (string, string, error) {
	art, err := a.Fetcher.Article(ctx, url)
	if err != nil {
		var fe *Error
		if errors.As(err, &fe) {
			return "", "", &app.FetchError{Message: fe.Message, Network: IsNetwork(err), Err: err}
		}
		return "", "", err
	}
	return art.HTML, art.Text, nil
}

// Icon finds and fetches a site's favicon (see Fetcher.Icon).
func (a Adapter) Icon(ctx context.Context, siteURL string) (*app.Icon, error) {
	return a.Fetcher.Icon(ctx, siteURL)
}
