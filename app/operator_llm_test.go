package app_test

import (
	"context"
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

// Issue 27, N9: when exposed, a user may name on the operator's LLM only the operator's model
// or one the operator allows (--llm-models); with a base URL of their own, any model. The
// settings service refuses the rest with a message, and keeps nothing of the refused change.
func TestOperatorLLMModelChoice(t *testing.T) {
	ctx := context.Background()
	db := sqlitetest.New(t)
	u, err := db.CreateUser(ctx, "second", "x", false)
	if err != nil {
		t.Fatal(err)
	}
	svc := app.NewUserSettings(db, nil, app.OperatorLLM{BaseURL: "http://llm.operator.example/v1", Model: "small", Models: []string{"medium"}, Exposed: true}, nil)
	str := func(s string) *string { return &s }
	refused := func(t *testing.T, up app.SettingsUpdate) {
		t.Helper()
		_, err := svc.Update(ctx, u.ID, up)
		if app.ErrorCode(err) != app.EINVALID || !strings.Contains(app.ErrorMessage(err), `The model "gpt-huge" is not offered on this server's LLM: choose "small" or "medium"`) {
			t.Fatalf("%v: want it refused", err)
		}
	}
	refused(t, app.SettingsUpdate{LLMModel: str("gpt-huge")})
	refused(t, app.SettingsUpdate{LLMBaseURL: str("http://LLM.operator.example/v1/"), LLMModel: str("gpt-huge")}) // the same endpoint, spelled otherwise
	if st, _ := svc.Get(ctx, u.ID); st.LLMModel != "" {
		t.Fatalf("a refused model was stored: %q", st.LLMModel)
	}
	for _, m := range []string{"small", "medium", ""} {
		if _, err := svc.Update(ctx, u.ID, app.SettingsUpdate{LLMModel: str(m)}); err != nil {
			t.Errorf("model %q: %v", m, err)
		}
	}
	// Their own endpoint and key: any model.
	if _, err := svc.Update(ctx, u.ID, app.SettingsUpdate{LLMBaseURL: str("https://api.mine.example/v1"), LLMAPIKey: str("sk-mine"), LLMModel: str("gpt-huge")}); err != nil {
		t.Fatalf("their own endpoint: %v", err)
	}
	// Pointing back at the operator's endpoint with that model stored is refused too.
	refused(t, app.SettingsUpdate{LLMBaseURL: str("")})
	// An update that does not touch the LLM is not held up by it.
	if _, err := svc.Update(ctx, u.ID, app.SettingsUpdate{Interests: str("sqlite")}); err != nil {
		t.Errorf("interests: %v", err)
	}

	// In local mode the one user is the operator and chooses freely.
	local := app.NewUserSettings(db, nil, app.OperatorLLM{BaseURL: "http://llm.operator.example/v1", Model: "small"}, nil)
	if _, err := local.Update(ctx, u.ID, app.SettingsUpdate{LLMBaseURL: str(""), LLMModel: str("anything")}); err != nil {
		t.Errorf("local mode: %v", err)
	}
	// No model configured and none allowed: the message says so.
	none := app.NewUserSettings(db, nil, app.OperatorLLM{Exposed: true}, nil)
	if _, err := none.Update(ctx, u.ID, app.SettingsUpdate{LLMBaseURL: str(""), LLMModel: str("llama3.2")}); app.ErrorCode(err) != app.EINVALID || !strings.Contains(app.ErrorMessage(err), "does not offer a choice of model") {
		t.Errorf("no operator model: %v", err)
	}
}
