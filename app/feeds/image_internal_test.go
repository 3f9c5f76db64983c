package feeds

import (
	"strings"
	"testing"

	"github.com/mmcdole/gofeed"
)

// TestFirstImageAsGofeed: the thumbnail found by our tokenizer (firstImage) is the one gofeed's
// own search (a full HTML parse of content, then description) finds, on ordinary and tricky
// markup.
func TestFirstImageAsGofeed(t *testing.T) {
	docs := []string{
		``, `no markup at all`, `<p>text</p>`, `<img src="a.jpg">`, `<p>x<img alt="no src"><img src='b.png'/></p>`,
		`<IMG SRC="C.GIF">`, `<img src="">`, `<img src="a&amp;b.jpg">`, `<img data-src="lazy.jpg" src="real.jpg">`,
		`<script><img src="no.jpg"></script><img src="yes.jpg">`, `<style>img{}</style><img src="s.jpg">`,
		`<noscript><img src="ns.jpg"></noscript><img src="after.jpg">`, `<textarea><img src="t.jpg"></textarea>`,
		`<title><img src="ti.jpg"></title>`, `<!-- <img src="c.jpg"> --><img src="d.jpg">`, `<image src="i.jpg">`,
		`<svg><image href="x.svg"/></svg><img src="z.jpg">`, `<template><img src="tpl.jpg"></template>`,
		`<img src=a.jpg src=b.jpg>`, `<img src = "spaced.jpg" >`, `<p><img src="unclosed.jpg"`, `<img/src="slash.jpg">`,
		`<iframe><img src="if.jpg"></iframe><img src="o.jpg">`, `&lt;img src="escaped.jpg"&gt;`,
		`<ImG src="mixed.jpg">`, "<img\nsrc=\"newline.jpg\">", `< img src="spaced-open.jpg">`, `<imgx src="other-tag.jpg">`,
		`a < b and <<Img src="late.jpg">`, `<IMAGE src="upper-image.jpg">`, `<imagine>`, `<`, `x<`, `<i`, `<im`,
	}
	for _, content := range append(docs, "") {
		for _, desc := range docs {
			feed := `<?xml version="1.0"?><rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel><title>t</title><item><title>i</title>` +
				`<description><![CDATA[` + desc + `]]></description>`
			if content != "" {
				feed += `<content:encoded><![CDATA[` + content + `]]></content:encoded>`
			}
			feed += `</item></channel></rss>`
			want, err := gofeed.NewParser().Parse(strings.NewReader(feed))
			if err != nil {
				t.Fatal(err)
			}
			got, err := parseGofeed([]byte(feed))
			if err != nil {
				t.Fatal(err)
			}
			w, g := "", ""
			if im := want.Items[0].Image; im != nil {
				w = "image " + im.URL
			}
			if im := got.Items[0].Image; im != nil {
				g = "image " + im.URL
			}
			if w != g {
				t.Errorf("content %q, description %q: got %q, gofeed %q", content, desc, g, w)
			}
		}
	}
}
