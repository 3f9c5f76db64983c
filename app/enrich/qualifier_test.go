package enrich_test

import (
	"context"
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/enrich"
)

// A common acronym beside other words qualifies them (issue 25: "Singapore dethrones US as most
// competitive economy" matched "US politics"): alone it is a mention, with them a match.
func TestCommonAcronymQualifies(t *testing.T) {
	e := enrich.NewEmbedded(enrich.EmbeddedOptions{})
	score := func(title string) (int, string) {
		res, err := e.Enrich(context.Background(), app.EnrichInput{Title: title, Text: title, Interests: "US politics"})
		if err != nil {
			t.Fatal(err)
		}
		return res.Score, res.Reasoning
	}
	stocks, why := score("US stocks surge ahead of ECB decision")
	if strings.Contains(why, "Matches your interests") {
		t.Errorf("an item about US stocks matches US politics: %d %s", stocks, why)
	}
	politics, why := score("US politics: the Senate returns to a budget fight")
	if !strings.Contains(why, "Matches your interests") || politics <= stocks {
		t.Errorf("an item about US politics: %d %s (US stocks: %d)", politics, why, stocks)
	}
	// A rare acronym is the subject on its own ("AWS pricing": any AWS item is about it).
	res, _ := e.Enrich(context.Background(), app.EnrichInput{Title: "AWS launches a new region", Text: "AWS launches a new region", Interests: "AWS pricing"})
	if !strings.Contains(res.Reasoning, "Matches your interests") {
		t.Errorf("an AWS item for AWS pricing: %d %s", res.Score, res.Reasoning)
	}
}
