package enrich_test

import (
	"context"
	"testing"

	"github.com/morningdeck/morningdeck/app"
)

// Issue 27, N9: a model stored before the operator narrowed the choice (or written around the
// settings service) is not used on the operator's LLM: the operator's model is. A user's own
// endpoint keeps their model.
func TestOperatorLLMIgnoresDisallowedStoredModel(t *testing.T) {
	ctx := context.Background()
	op := newLLMServer(t, 200, "")
	c, _, second, set := exposed(t, op.URL)
	c.Models = []string{"medium"}
	model := func() string {
		t.Helper()
		s, err := c.Settings.Settings(ctx, second)
		if err != nil {
			t.Fatal(err)
		}
		l := c.LLMFor(s)
		if l == nil {
			t.Fatal("no LLM")
		}
		return l.Name()
	}
	set(second, app.SettingsUpdate{LLMModel: ptr("gpt-huge")})
	if got := model(); got != "llm:m" {
		t.Errorf("a disallowed model on the operator's LLM: %s, want the operator's llm:m", got)
	}
	set(second, app.SettingsUpdate{LLMModel: ptr("medium")})
	if got := model(); got != "llm:medium" {
		t.Errorf("an allowed model: %s", got)
	}
	set(second, app.SettingsUpdate{LLMModel: ptr("gpt-huge"), LLMBaseURL: ptr("https://api.mine.example/v1"), LLMAPIKey: ptr("sk-mine")})
	if got := model(); got != "llm:gpt-huge" {
		t.Errorf("their own endpoint: %s", got)
	}
	c.Exposed = false
	set(second, app.SettingsUpdate{LLMBaseURL: ptr("")})
	if got := model(); got != "llm:gpt-huge" {
		t.Errorf("local mode: %s", got)
	}
}
