package feeds

import (
	"bytes"
	"context"
	"errors"
	"net/url"
	"strings"

	"golang.org/x/net/html"

	"github.com/morningdeck/morningdeck/app"
)

const acceptIcon = "image/png,image/x-icon,image/vnd.microsoft.icon,image/gif,image/jpeg,image/webp;q=0.9,*/*;q=0.1"

// Icon finds a site's favicon: the icons its page names (<link rel=icon>, then
// apple-touch-icon), then /favicon.ico. It goes through the same guarded client as the feeds,
// reads at most app.MaxIconBytes of an icon, and keeps only PNG, ICO, GIF, JPEG and WebP bytes
// (checked by their magic numbers; SVG is refused).
func (f *Fetcher) Icon(ctx context.Context, siteURL string) (*app.Icon, error) {
	base, err := parseURL(siteURL)
	if err != nil {
		return nil, err
	}
	var candidates []string
	if page, err := f.getPage(ctx, base.String(), acceptHTML, 1<<20); err == nil && !page.notModified {
		candidates = iconLinks(page.body, page.finalURL)
		page.done()
	} else if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	candidates = append(candidates, base.ResolveReference(&url.URL{Path: "/favicon.ico"}).String())
	var last error
	seen := map[string]bool{}
	for _, c := range candidates {
		if seen[c] || len(seen) >= 4 {
			continue
		}
		seen[c] = true
		icon, err := f.iconAt(ctx, c)
		if err == nil {
			return icon, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		last = err
	}
	return nil, last
}

func (f *Fetcher) iconAt(ctx context.Context, rawURL string) (*app.Icon, error) {
	resp, err := f.getPage(ctx, rawURL, acceptIcon, app.MaxIconBytes)
	if err != nil {
		var fe *Error
		if errors.As(err, &fe) && fe.Kind == KindTooLarge {
			return nil, &Error{Kind: KindTooLarge, Message: "The icon is larger than 64 KB."}
		}
		return nil, err
	}
	defer resp.done()
	if resp.notModified || len(resp.body) == 0 {
		return nil, &Error{Kind: KindParse, Message: "The icon is empty."}
	}
	ct := app.SniffIcon(resp.body)
	if ct == "" {
		return nil, &Error{Kind: KindParse, Message: "The icon is not a PNG, ICO, GIF, JPEG or WebP image."}
	}
	return &app.Icon{ContentType: ct, Data: resp.body, ETag: app.IconETag(resp.body)}, nil
}

// iconLinks returns the icons a page names, <link rel=icon> (and "shortcut icon") first, then
// apple-touch-icon, resolved against the page; data: and non-http addresses are left out.
func iconLinks(page []byte, pageURL *url.URL) []string {
	var icons, touch []string
	z := html.NewTokenizer(bytes.NewReader(page))
	base := pageURL
	for n := 0; n < 20000; n++ {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		name, hasAttr := z.TagName()
		tag := string(name)
		if tag == "body" {
			break
		}
		if !hasAttr || (tag != "link" && tag != "base") {
			continue
		}
		attrs := map[string]string{}
		for {
			k, v, more := z.TagAttr()
			attrs[strings.ToLower(string(k))] = strings.TrimSpace(string(v))
			if !more {
				break
			}
		}
		if tag == "base" {
			if u, err := pageURL.Parse(attrs["href"]); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
				base = u
			}
			continue
		}
		href := attrs["href"]
		if href == "" {
			continue
		}
		u, err := base.Parse(href)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
			continue
		}
		if strings.Contains(strings.ToLower(attrs["type"]), "svg") || strings.HasSuffix(strings.ToLower(u.Path), ".svg") {
			continue // refused anyway: do not spend a request on it
		}
		for _, rel := range strings.Fields(strings.ToLower(attrs["rel"])) {
			switch rel {
			case "icon":
				icons = append(icons, u.String())
			case "apple-touch-icon", "apple-touch-icon-precomposed":
				touch = append(touch, u.String())
			}
		}
	}
	return append(icons, touch...)
}
