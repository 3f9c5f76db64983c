package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/url"
	"strings"
	"time"
)

// Saving an item elsewhere (issue 28): each user may name a webhook, which receives the item
// as JSON signed with the user's secret, and a Wallabag account, which keeps the page for
// reading later. "Save" on an item sends it to every one the user set up, at once, and says
// plainly what each answered; nothing is retried behind the reader's back.

// SavedItem is what leaves Morning Deck when an item is saved: the webhook's JSON and what
// Wallabag is given (its link, title and tags).
type SavedItem struct {
	ID          int64      `json:"id"`
	Title       string     `json:"title"`
	URL         string     `json:"url"`
	Author      string     `json:"author,omitempty"`
	PublishedAt *time.Time `json:"published_at,omitempty"`
	Source      SavedFrom  `json:"source"`
	Summary     string     `json:"summary,omitempty"`
	Content     string     `json:"content,omitempty"` // sanitized HTML, as the app shows it
	Tags        []string   `json:"tags"`
	Topics      []string   `json:"topics"`
	Score       *int       `json:"score,omitempty"`
	Reason      string     `json:"reason,omitempty"`
	Starred     bool       `json:"starred"`
}

// SavedFrom is the source a saved item came from.
type SavedFrom struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
	URL  string `json:"url"`
}

// WallabagAccount is a Wallabag server and the API client and user that save to it (Wallabag:
// "API clients management" gives the client ID and secret).
type WallabagAccount struct {
	URL          string
	ClientID     string
	ClientSecret string
	Username     string
	Password     string
}

// Set reports whether the account is complete enough to try.
func (a WallabagAccount) Set() bool {
	return a.URL != "" && a.ClientID != "" && a.ClientSecret != "" && a.Username != "" && a.Password != ""
}

// ItemSender delivers saved items: app/saveto implements it over HTTP.
type ItemSender interface {
	// Webhook posts the item to url, signed with secret.
	Webhook(ctx context.Context, url, secret string, it SavedItem) error
	// Wallabag adds the item's page to the account.
	Wallabag(ctx context.Context, a WallabagAccount, it SavedItem) error
	// CheckWallabag signs in to the account, to say before it is stored whether it works.
	CheckWallabag(ctx context.Context, a WallabagAccount) error
}

// Saving is the service behind "Save": it sends an item to the places the user set up.
type Saving struct {
	Settings SettingsStore
	Items    ReadingStore
	Sources  interface {
		Source(ctx context.Context, userID, id int64) (*Source, error)
	}
	Sender ItemSender
	Log    *slog.Logger
}

// Targets names the places a user's items are saved to ("Wallabag", "your webhook"), in the
// order Save sends to them; none: Save is not offered.
func (s *Saving) Targets(st *Settings) []string {
	if s == nil || s.Sender == nil || st == nil {
		return nil
	}
	var out []string
	if st.WallabagAccount().Set() {
		out = append(out, "Wallabag")
	}
	if st.WebhookURL != "" {
		out = append(out, "your webhook")
	}
	return out
}

// Save sends one of the user's items to each place they set up, and answers what was done
// ("Saved to Wallabag and your webhook."). A place that fails is named with its answer in an
// EINVALID error; the others are still tried.
func (s *Saving) Save(ctx context.Context, userID, itemID int64) (string, error) {
	if s == nil || s.Sender == nil {
		return "", Errorf(EINVALID, "Saving items elsewhere is not available in this installation.")
	}
	st, err := s.Settings.Settings(ctx, userID)
	if err != nil {
		return "", err
	}
	it, err := s.Items.Item(ctx, userID, itemID)
	if err != nil {
		return "", err
	}
	targets := s.Targets(st)
	if len(targets) == 0 {
		return "", Errorf(EINVALID, "Nowhere to save to yet: set up a webhook or Wallabag in Settings → Save items elsewhere.")
	}
	saved := s.savedItem(ctx, userID, it)
	var done, failed []string
	for _, t := range targets {
		var err error
		switch t {
		case "Wallabag":
			if saved.URL == "" {
				err = Errorf(EINVALID, "Wallabag keeps pages, and this item links to no page.")
				break
			}
			err = s.Sender.Wallabag(ctx, st.WallabagAccount(), saved)
		default:
			err = s.Sender.Webhook(ctx, st.WebhookURL, st.WebhookSecret, saved)
		}
		if err != nil {
			if ctx.Err() != nil {
				return "", ctx.Err()
			}
			logOrDiscard(s.Log).Info("saving an item failed", "component", "saving", "user", userID, "item", itemID, "to", t, "error", err)
			failed = append(failed, strings.TrimSuffix(ErrorMessage(err), "."))
			continue
		}
		done = append(done, t)
	}
	if len(failed) > 0 {
		msg := "Not saved. " + strings.Join(failed, ". ") + "."
		if len(done) > 0 {
			msg = "Saved to " + AndList(done) + ", but not everywhere. " + strings.Join(failed, ". ") + "."
		}
		return "", Errorf(EINVALID, "%s", msg)
	}
	return "Saved to " + AndList(done) + ".", nil
}

// Configure changes where the user's items are saved (the webhook and Wallabag fields of u;
// others are ignored). A Wallabag account that is complete after the change is signed in to
// first, and not stored when that fails, with what failed in plain words.
func (s *Saving) Configure(ctx context.Context, userID int64, u SettingsUpdate) (*Settings, error) {
	u = SettingsUpdate{WebhookURL: u.WebhookURL, NewWebhookSecret: u.NewWebhookSecret, WallabagURL: u.WallabagURL,
		WallabagClientID: u.WallabagClientID, WallabagClientSecret: u.WallabagClientSecret, WallabagUsername: u.WallabagUsername, WallabagPassword: u.WallabagPassword}
	if err := u.Validate(); err != nil {
		return nil, err
	}
	cur, err := s.Settings.Settings(ctx, userID)
	if err != nil {
		return nil, err
	}
	a := cur.WallabagAccount()
	for _, f := range []struct {
		to   *string
		from *string
	}{{&a.URL, u.WallabagURL}, {&a.ClientID, u.WallabagClientID}, {&a.ClientSecret, u.WallabagClientSecret}, {&a.Username, u.WallabagUsername}, {&a.Password, u.WallabagPassword}} {
		if f.from != nil {
			*f.to = *f.from
		}
	}
	changed := a != cur.WallabagAccount()
	if changed && a.URL != "" && !a.Set() {
		return nil, Errorf(EINVALID, "Wallabag needs its address, a client ID and secret (Wallabag → API clients management), your user name and your password.")
	}
	if changed && a.Set() {
		if s.Sender == nil {
			return nil, Errorf(EINVALID, "Saving items elsewhere is not available in this installation.")
		}
		if err := s.Sender.CheckWallabag(ctx, a); err != nil {
			return nil, err
		}
	}
	return s.Settings.UpdateSettings(ctx, userID, u)
}

// savedItem is the item as it leaves the app; the source's name and address come from the
// source (an item of a deleted source keeps its own fields).
func (s *Saving) savedItem(ctx context.Context, userID int64, it *Item) SavedItem {
	out := SavedItem{ID: it.ID, Title: it.Title, URL: it.Link, Author: it.Author, PublishedAt: it.PublishedAt,
		Source: SavedFrom{ID: it.SourceID, Name: it.SourceName}, Summary: it.Summary, Content: it.CleanContent,
		Tags: nonNil(it.Tags), Topics: nonNil(it.Topics), Score: it.Score, Reason: it.ScoreReasoning, Starred: it.Starred}
	if s.Sources != nil {
		if src, err := s.Sources.Source(ctx, userID, it.SourceID); err == nil && src != nil {
			out.Source.URL = src.URL
			if src.Name != "" {
				out.Source.Name = src.Name
			}
		}
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// WallabagAccount is the user's Wallabag account from their settings.
func (s *Settings) WallabagAccount() WallabagAccount {
	return WallabagAccount{URL: s.WallabagURL, ClientID: s.WallabagClientID, ClientSecret: s.WallabagClientSecret,
		Username: s.WallabagUsername, Password: s.WallabagPassword}
}

// validSaveURL cleans the address of a webhook or a Wallabag server: http(s), a host, no
// credentials in it (they would show on the settings page).
func validSaveURL(raw, what, example string) (string, error) {
	v := strings.TrimSpace(raw)
	if v == "" {
		return "", nil
	}
	p, err := url.Parse(v)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" || strings.ContainsAny(v, " \r\n\t") {
		return "", Errorf(EINVALID, "The %s must be an http(s) address such as %s.", what, example)
	}
	if p.User != nil {
		return "", Errorf(EINVALID, "Leave the name and password out of the %s's address.", what)
	}
	if len(v) > 2000 {
		return "", Errorf(EINVALID, "The %s's address is too long.", what)
	}
	return v, nil
}

// NewWebhookSecret is a webhook's signing secret: 32 random bytes, in hex. The stores make one
// when a webhook is first set (SettingsUpdate.WebhookURL) or on request (NewWebhookSecret).
func NewWebhookSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
