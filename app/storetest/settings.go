package storetest

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

// SettingsStore is a user's settings and the daily credits.
type SettingsStore interface {
	app.SettingsStore
	RefillCredits(ctx context.Context) (int, error)
	SetCredits(ctx context.Context, userID int64, credits int) error
}

// Settings runs the settings suite.
func Settings(t *testing.T, open Open[SettingsStore]) {
	ctx := context.Background()
	id := app.DefaultUserID

	t.Run("a new user has the defaults", func(t *testing.T) {
		s := open(t, NewClock(start))
		got, err := s.Settings(ctx, id)
		must(t, "settings", err)
		want := &app.Settings{UserID: id, Topics: []app.Topic{}, Credits: 1000, DailyCredits: 1000}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("defaults:\n%+v\nwant\n%+v", got, want)
		}
		_, err = s.Settings(ctx, 999)
		wantCode(t, "an unknown user's settings", err, app.ENOTFOUND)
	})

	t.Run("an update changes the fields it names and no other", func(t *testing.T) {
		s := open(t, NewClock(start))
		str := func(v string) *string { return &v }
		num := func(v int) *int { return &v }
		yes := true
		topics := []app.Topic{{Name: "Go", Keywords: []string{"golang", "gopher"}}, {Name: "Rust"}}
		got, err := s.UpdateSettings(ctx, id, app.SettingsUpdate{
			Interests: str("compilers"), Topics: &topics, Enricher: str(app.EnricherLLM), DailyCredits: num(50),
			Timezone: str("Europe/Paris"), LLMBaseURL: str("http://127.0.0.1:11434/v1"), LLMModel: str("m"), LLMAPIKey: str("k"),
			SMTPHost: str(" smtp.example.com "), SMTPPort: num(587), SMTPUsername: str("u"), SMTPPassword: str("p"),
			SMTPFrom: str("me@example.com"), SMTPTLS: str("starttls"), MarkReadOnScroll: &yes, Density: str(app.DensityCompact),
		})
		must(t, "update", err)
		want := &app.Settings{UserID: id, Interests: "compilers", Topics: topics, Enricher: app.EnricherLLM, Credits: 1000, DailyCredits: 50,
			Timezone: "Europe/Paris", LLMBaseURL: "http://127.0.0.1:11434/v1", LLMModel: "m", LLMAPIKey: "k",
			SMTPHost: "smtp.example.com", SMTPPort: 587, SMTPUsername: "u", SMTPPassword: "p", SMTPFrom: "me@example.com", SMTPTLS: "starttls",
			MarkReadOnScroll: true, Density: app.DensityCompact}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("after the update:\n%+v\nwant\n%+v", got, want)
		}
		got, err = s.UpdateSettings(ctx, id, app.SettingsUpdate{Interests: str("")})
		must(t, "second update", err)
		want.Interests = ""
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("after the second update:\n%+v\nwant\n%+v", got, want)
		}
		_, err = s.UpdateSettings(ctx, 999, app.SettingsUpdate{Interests: str("x")})
		wantCode(t, "an unknown user's update", err, app.ENOTFOUND)
	})

	t.Run("a webhook gets a secret that stays through changes of address; Wallabag's fields are kept", func(t *testing.T) {
		s := open(t, NewClock(start))
		str := func(v string) *string { return &v }
		got, err := s.UpdateSettings(ctx, id, app.SettingsUpdate{WebhookURL: str("https://hooks.example/a"), WallabagURL: str("https://wb.example"),
			WallabagClientID: str("1_c"), WallabagClientSecret: str("cs"), WallabagUsername: str("ann"), WallabagPassword: str("pw")})
		must(t, "set", err)
		secret := got.WebhookSecret
		if len(secret) != 64 || got.WebhookURL != "https://hooks.example/a" || got.WallabagAccount() != (app.WallabagAccount{URL: "https://wb.example", ClientID: "1_c", ClientSecret: "cs", Username: "ann", Password: "pw"}) {
			t.Fatalf("after setting them: %+v", got)
		}
		got, err = s.UpdateSettings(ctx, id, app.SettingsUpdate{WebhookURL: str("https://hooks.example/b")})
		must(t, "move", err)
		if got.WebhookSecret != secret || got.WebhookURL != "https://hooks.example/b" || got.WallabagPassword != "pw" {
			t.Fatalf("a new address changed the secret or Wallabag's fields: %+v", got)
		}
		got, err = s.UpdateSettings(ctx, id, app.SettingsUpdate{NewWebhookSecret: true})
		must(t, "new secret", err)
		if len(got.WebhookSecret) != 64 || got.WebhookSecret == secret {
			t.Fatalf("a new secret was asked for: %q (was %q)", got.WebhookSecret, secret)
		}
	})

	t.Run("credits are refilled once a day", func(t *testing.T) {
		clock := NewClock(start)
		s := open(t, clock)
		must(t, "spend", s.SetCredits(ctx, id, 3))
		n, err := s.RefillCredits(ctx)
		must(t, "refill", err)
		got, err := s.Settings(ctx, id)
		must(t, "settings", err)
		if n != 1 || got.Credits != 1000 || got.CreditsRefill == nil || !got.CreditsRefill.Equal(start) {
			t.Fatalf("first refill: %d users, %+v (refilled %v)", n, got, got.CreditsRefill)
		}
		must(t, "spend again", s.SetCredits(ctx, id, 3))
		clock.Add(time.Hour)
		if n, err := s.RefillCredits(ctx); err != nil || n != 0 {
			t.Fatalf("a second refill the same day: %d users, %v", n, err)
		}
		clock.Add(24 * time.Hour)
		if n, err := s.RefillCredits(ctx); err != nil || n != 1 {
			t.Fatalf("the next day's refill: %d users, %v", n, err)
		}
		if got, err := s.Settings(ctx, id); err != nil || got.Credits != 1000 {
			t.Fatalf("after the next day's refill: %+v, %v", got, err)
		}
	})
}
