package sqlite

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

const qSettings = `select interests, topics, enricher, credits, daily_credits, credits_refilled_at, timezone,
	llm_base_url, llm_model, llm_api_key, smtp_host, smtp_port, smtp_username, smtp_password, smtp_from, smtp_tls, mark_read_on_scroll, density,
	webhook_url, webhook_secret, wallabag_url, wallabag_client_id, wallabag_client_secret, wallabag_username, wallabag_password from users where id = ?`

// Settings returns a user's settings.
func (db *DB) Settings(ctx context.Context, userID int64) (*app.Settings, error) {
	s := &app.Settings{UserID: userID}
	var topics string
	var refill sql.NullString
	st, err := db.readStmt(ctx, qSettings)
	if err != nil {
		return nil, fmt.Errorf("sqlite: settings: %w", err)
	}
	err = st.QueryRowContext(ctx, userID).Scan(&s.Interests, &topics, &s.Enricher, &s.Credits, &s.DailyCredits, &refill, &s.Timezone, &s.LLMBaseURL, &s.LLMModel, &s.LLMAPIKey,
		&s.SMTPHost, &s.SMTPPort, &s.SMTPUsername, &s.SMTPPassword, &s.SMTPFrom, &s.SMTPTLS, &s.MarkReadOnScroll, &s.Density,
		&s.WebhookURL, &s.WebhookSecret, &s.WallabagURL, &s.WallabagClientID, &s.WallabagClientSecret, &s.WallabagUsername, &s.WallabagPassword)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, app.Errorf(app.ENOTFOUND, "User %d not found.", userID)
	} else if err != nil {
		return nil, fmt.Errorf("sqlite: settings: %w", err)
	}
	_ = json.Unmarshal([]byte(topics), &s.Topics)
	s.CreditsRefill = parseTimePtr(refill)
	return s, nil
}

// UpdateSettings stores a settings change that app.UserSettings.Update validated.
func (db *DB) UpdateSettings(ctx context.Context, userID int64, u app.SettingsUpdate) (*app.Settings, error) {
	err := db.tx(ctx, func(tx *sql.Tx) error {
		set := func(col string, v any) error {
			_, err := tx.ExecContext(ctx, `update users set `+col+` = ? where id = ?`, v, userID)
			return err
		}
		var errs []error
		if u.Interests != nil {
			errs = append(errs, set("interests", *u.Interests))
		}
		if u.Topics != nil {
			b, _ := json.Marshal(*u.Topics)
			errs = append(errs, set("topics", string(b)))
		}
		if u.Enricher != nil {
			errs = append(errs, set("enricher", *u.Enricher))
		}
		if u.DailyCredits != nil {
			errs = append(errs, set("daily_credits", *u.DailyCredits))
		}
		if u.Timezone != nil {
			errs = append(errs, set("timezone", *u.Timezone))
		}
		if u.LLMBaseURL != nil {
			errs = append(errs, set("llm_base_url", *u.LLMBaseURL))
		}
		if u.LLMModel != nil {
			errs = append(errs, set("llm_model", *u.LLMModel))
		}
		if u.LLMAPIKey != nil {
			errs = append(errs, set("llm_api_key", *u.LLMAPIKey))
		}
		for col, v := range map[string]*string{"smtp_host": u.SMTPHost, "smtp_username": u.SMTPUsername, "smtp_password": u.SMTPPassword, "smtp_from": u.SMTPFrom, "smtp_tls": u.SMTPTLS} {
			if v != nil {
				errs = append(errs, set(col, strings.TrimSpace(*v)))
			}
		}
		if u.SMTPPort != nil {
			errs = append(errs, set("smtp_port", *u.SMTPPort))
		}
		if u.MarkReadOnScroll != nil {
			errs = append(errs, set("mark_read_on_scroll", *u.MarkReadOnScroll))
		}
		if u.Density != nil {
			errs = append(errs, set("density", *u.Density))
		}
		for col, v := range map[string]*string{"wallabag_url": u.WallabagURL, "wallabag_client_id": u.WallabagClientID,
			"wallabag_client_secret": u.WallabagClientSecret, "wallabag_username": u.WallabagUsername, "wallabag_password": u.WallabagPassword} {
			if v != nil {
				errs = append(errs, set(col, *v))
			}
		}
		if u.WebhookURL != nil {
			errs = append(errs, set("webhook_url", *u.WebhookURL))
		}
		// A webhook gets its signing secret when first set (or on request); one set stays the
		// same through changes of address, so a receiver's check keeps working.
		if u.NewWebhookSecret || u.WebhookURL != nil && *u.WebhookURL != "" {
			q := `update users set webhook_secret = ? where id = ? and webhook_secret = ''`
			if u.NewWebhookSecret {
				q = `update users set webhook_secret = ? where id = ?`
			}
			_, err := tx.ExecContext(ctx, q, app.NewWebhookSecret(), userID)
			errs = append(errs, err)
		}
		if err := errors.Join(errs...); err != nil {
			return fmt.Errorf("sqlite: update settings: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return db.Settings(ctx, userID)
}

// RefillCredits sets every user's credits to their daily amount when their last refill was
// before the start of today (UTC). It returns how many users were refilled.
func (db *DB) RefillCredits(ctx context.Context) (int, error) {
	now := db.clock.Now().UTC()
	day := FormatTime(now.Truncate(24 * time.Hour))
	var n int64
	err := db.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `update users set credits = daily_credits, credits_refilled_at = ?
			where credits_refilled_at is null or credits_refilled_at < ?`, FormatTime(now), day)
		if err != nil {
			return fmt.Errorf("sqlite: refill credits: %w", err)
		}
		n, _ = res.RowsAffected()
		return nil
	})
	return int(n), err
}

// SetCredits sets a user's current credit balance (for the settings page and tests).
func (db *DB) SetCredits(ctx context.Context, userID int64, credits int) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `update users set credits = ? where id = ?`, credits, userID)
		return err
	})
}
