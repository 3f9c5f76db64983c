package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

var _ app.SettingsStore = (*DB)(nil)

// Settings returns a user's settings.
func (db *DB) Settings(ctx context.Context, userID int64) (*app.Settings, error) {
	s := &app.Settings{UserID: userID}
	var topics string
	var refill sql.NullTime
	err := db.SQL.QueryRowContext(ctx, `select interests, topics, enricher, credits, daily_credits, credits_refilled_at, timezone,
		llm_base_url, llm_model, llm_api_key, smtp_host, smtp_port, smtp_username, smtp_password, smtp_from, smtp_tls, mark_read_on_scroll, density,
		webhook_url, webhook_secret, wallabag_url, wallabag_client_id, wallabag_client_secret, wallabag_username, wallabag_password
		from users where id = $1`, userID).Scan(&s.Interests, &topics, &s.Enricher, &s.Credits, &s.DailyCredits, &refill, &s.Timezone, &s.LLMBaseURL, &s.LLMModel, &s.LLMAPIKey,
		&s.SMTPHost, &s.SMTPPort, &s.SMTPUsername, &s.SMTPPassword, &s.SMTPFrom, &s.SMTPTLS, &s.MarkReadOnScroll, &s.Density,
		&s.WebhookURL, &s.WebhookSecret, &s.WallabagURL, &s.WallabagClientID, &s.WallabagClientSecret, &s.WallabagUsername, &s.WallabagPassword)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, app.Errorf(app.ENOTFOUND, "User %d not found.", userID)
	} else if err != nil {
		return nil, fmt.Errorf("postgres: settings: %w", err)
	}
	_ = json.Unmarshal([]byte(topics), &s.Topics)
	s.CreditsRefill = timePtr(refill)
	return s, nil
}

// UpdateSettings stores a settings change that app.UserSettings.Update validated, in one
// statement.
func (db *DB) UpdateSettings(ctx context.Context, userID int64, u app.SettingsUpdate) (*app.Settings, error) {
	var sets []string
	var args []any
	set := func(col string, v any) {
		args = append(args, v)
		sets = append(sets, fmt.Sprintf("%s = $%d", col, len(args)))
	}
	if u.Interests != nil {
		set("interests", *u.Interests)
	}
	if u.Topics != nil {
		b, _ := json.Marshal(*u.Topics)
		set("topics", string(b))
	}
	if u.Enricher != nil {
		set("enricher", *u.Enricher)
	}
	if u.DailyCredits != nil {
		set("daily_credits", *u.DailyCredits)
	}
	if u.Timezone != nil {
		set("timezone", *u.Timezone)
	}
	if u.LLMBaseURL != nil {
		set("llm_base_url", *u.LLMBaseURL)
	}
	if u.LLMModel != nil {
		set("llm_model", *u.LLMModel)
	}
	if u.LLMAPIKey != nil {
		set("llm_api_key", *u.LLMAPIKey)
	}
	for _, f := range []struct {
		col string
		v   *string
	}{{"smtp_host", u.SMTPHost}, {"smtp_username", u.SMTPUsername}, {"smtp_password", u.SMTPPassword}, {"smtp_from", u.SMTPFrom}, {"smtp_tls", u.SMTPTLS}} {
		if f.v != nil {
			set(f.col, strings.TrimSpace(*f.v))
		}
	}
	if u.SMTPPort != nil {
		set("smtp_port", *u.SMTPPort)
	}
	if u.MarkReadOnScroll != nil {
		set("mark_read_on_scroll", *u.MarkReadOnScroll)
	}
	if u.Density != nil {
		set("density", *u.Density)
	}
	for _, f := range []struct {
		col string
		v   *string
	}{{"webhook_url", u.WebhookURL}, {"wallabag_url", u.WallabagURL}, {"wallabag_client_id", u.WallabagClientID},
		{"wallabag_client_secret", u.WallabagClientSecret}, {"wallabag_username", u.WallabagUsername}, {"wallabag_password", u.WallabagPassword}} {
		if f.v != nil {
			set(f.col, *f.v)
		}
	}
	// A webhook gets its signing secret when first set (or on request); one set stays the same
	// through changes of address, so a receiver's check keeps working.
	switch {
	case u.NewWebhookSecret:
		set("webhook_secret", app.NewWebhookSecret())
	case u.WebhookURL != nil && *u.WebhookURL != "":
		args = append(args, app.NewWebhookSecret())
		sets = append(sets, fmt.Sprintf("webhook_secret = case when webhook_secret = '' then $%d else webhook_secret end", len(args)))
	}
	if len(sets) > 0 {
		args = append(args, userID)
		if _, err := db.SQL.ExecContext(ctx, `update users set `+strings.Join(sets, ", ")+fmt.Sprintf(` where id = $%d`, len(args)), args...); err != nil {
			return nil, fmt.Errorf("postgres: update settings: %w", err)
		}
	}
	return db.Settings(ctx, userID)
}

// RefillCredits sets every user's credits to their daily amount when their last refill was
// before the start of today (UTC). It returns how many users were refilled. Instances running
// it at once refill each user once: the second's update finds the first's refill time.
func (db *DB) RefillCredits(ctx context.Context) (int, error) {
	now := db.now()
	res, err := db.SQL.ExecContext(ctx, `update users set credits = daily_credits, credits_refilled_at = $1
		where credits_refilled_at is null or credits_refilled_at < $2`, now, now.Truncate(24*time.Hour))
	if err != nil {
		return 0, fmt.Errorf("postgres: refill credits: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// SetCredits sets a user's current credit balance (for the settings page and tests).
func (db *DB) SetCredits(ctx context.Context, userID int64, credits int) error {
	_, err := db.SQL.ExecContext(ctx, `update users set credits = $1 where id = $2`, credits, userID)
	return err
}
