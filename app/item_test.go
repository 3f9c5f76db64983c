package app_test

import (
	"testing"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/htmltext"
)

// StoredText is htmltext.Stored of the item's text and HTML, whether SetTextOfContent made the
// text or not, and after either changed.
func TestItemStoredText(t *testing.T) {
	htmls := []string{"", "<p>Hello <b>world</b> &amp; more</p>", "plain words", "<img src=\"x\">", "<p> </p>"}
	for _, clean := range htmls {
		for _, change := range []func(*app.Item){
			func(*app.Item) {},
			func(it *app.Item) { it.Text = "another text" },
			func(it *app.Item) { it.Text = "" },
			func(it *app.Item) { it.CleanContent = "<p>changed</p>" },
			func(it *app.Item) { it.CleanContent = "" },
			func(it *app.Item) { it.Text, it.CleanContent = "changed", "<p>changed</p>" },
		} {
			for _, derive := range []bool{false, true} {
				it := app.Item{CleanContent: clean, Text: "a text of its own"}
				if derive {
					it.SetTextOfContent()
					if it.Text != htmltext.Text(clean) {
						t.Fatalf("SetTextOfContent of %q: Text %q", clean, it.Text)
					}
				}
				change(&it)
				if got, want := it.StoredText(), htmltext.Stored(it.Text, it.CleanContent); got != want {
					t.Errorf("StoredText of text %q, HTML %q (derived %v) = %q, want %q", it.Text, it.CleanContent, derive, got, want)
				}
			}
		}
	}
}
