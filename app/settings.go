package app

import (
	"context"
	"log/slog"
	"net"
	"net/url"
	"reflect"
	"strings"
	"time"
)

// Enricher names.
const (
	EnricherEmbedded = "embedded"
	EnricherLLM      = "llm"
)

// Settings are a user's preferences for processing and reading.
type Settings struct {
	UserID        int64
	Interests     string
	Topics        []Topic
	Enricher      string // "" means the app's default
	Credits       int
	DailyCredits  int
	CreditsRefill *time.Time
	Timezone      string
	// The user's LLM; empty fields fall back to the app's configuration.
	LLMBaseURL string
	LLMModel   string
	LLMAPIKey  string // never shown back
	// The user's SMTP server; empty fields fall back to the app's configuration.
	SMTPHost     string
	SMTPPort     int
	SMTPUsername string
	SMTPPassword string // never shown back
	SMTPFrom     string
	SMTPTLS      string
	// Reading options.
	MarkReadOnScroll bool   // an item scrolled past in a list is marked read (off by default)
	Density          string // the lists' density: DensityComfortable or DensityCompact
	// Saving items elsewhere (Saving): a webhook that receives them signed with WebhookSecret
	// (made by the app when a webhook is first set, shown so the receiver can check it), and a
	// Wallabag account (its client secret and password never shown back).
	WebhookURL           string
	WebhookSecret        string
	WallabagURL          string
	WallabagClientID     string
	WallabagClientSecret string // never shown back
	WallabagUsername     string
	WallabagPassword     string // never shown back
}

// Densities of the item lists.
const (
	DensityComfortable = ""        // cards with their summary, tags and actions
	DensityCompact     = "compact" // one or two lines an item: several times more on a screen
)

// SettingsUpdate changes settings; nil leaves a field as it is.
type SettingsUpdate struct {
	Interests        *string
	Topics           *[]Topic
	Enricher         *string
	DailyCredits     *int
	Timezone         *string
	LLMBaseURL       *string
	LLMModel         *string
	LLMAPIKey        *string
	SMTPHost         *string
	SMTPPort         *int
	SMTPUsername     *string
	SMTPPassword     *string
	SMTPFrom         *string
	SMTPTLS          *string
	MarkReadOnScroll *bool
	Density          *string
	// Saving elsewhere; a new WebhookURL without a secret stored gets one (the store makes it).
	WebhookURL           *string
	NewWebhookSecret     bool // make a new secret: the old one stops verifying
	WallabagURL          *string
	WallabagClientID     *string
	WallabagClientSecret *string
	WallabagUsername     *string
	WallabagPassword     *string
}

// Validate checks an update and cleans its values.
func (u *SettingsUpdate) Validate() error {
	if u.Interests != nil {
		s := strings.TrimSpace(*u.Interests)
		if len(s) > 4000 {
			return Errorf(EINVALID, "Interests can be at most 4000 characters.")
		}
		u.Interests = &s
	}
	if u.Topics != nil {
		if len(*u.Topics) > 100 {
			return Errorf(EINVALID, "At most 100 topics.")
		}
		seen := map[string]bool{}
		clean := make([]Topic, 0, len(*u.Topics))
		for _, t := range *u.Topics {
			name := strings.TrimSpace(t.Name)
			if name == "" {
				return Errorf(EINVALID, "Every topic needs a name.")
			}
			if len(name) > 60 {
				return Errorf(EINVALID, "Topic name %q is longer than 60 characters.", name)
			}
			if seen[strings.ToLower(name)] {
				return Errorf(EINVALID, "Topic %q is listed twice.", name)
			}
			seen[strings.ToLower(name)] = true
			var kws []string
			for _, k := range t.Keywords {
				if k = strings.TrimSpace(k); k != "" {
					kws = append(kws, k)
				}
			}
			if len(kws) > 30 {
				return Errorf(EINVALID, "Topic %q has more than 30 keywords.", name)
			}
			clean = append(clean, Topic{Name: name, Keywords: kws})
		}
		u.Topics = &clean
	}
	if u.Enricher != nil && *u.Enricher != "" && *u.Enricher != EnricherEmbedded && *u.Enricher != EnricherLLM {
		return Errorf(EINVALID, "Enricher must be %q or %q.", EnricherEmbedded, EnricherLLM)
	}
	if u.DailyCredits != nil && (*u.DailyCredits < 0 || *u.DailyCredits > 1_000_000) {
		return Errorf(EINVALID, "Daily credits must be between 0 and 1000000.")
	}
	if u.LLMBaseURL != nil {
		v := strings.TrimRight(strings.TrimSpace(*u.LLMBaseURL), "/")
		if v != "" {
			if p, err := url.Parse(v); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
				return Errorf(EINVALID, "The LLM base URL must be an http(s) address such as http://127.0.0.1:11434/v1.")
			}
		}
		u.LLMBaseURL = &v
	}
	if u.LLMModel != nil {
		v := strings.TrimSpace(*u.LLMModel)
		if len(v) > 200 {
			return Errorf(EINVALID, "The model name is too long.")
		}
		u.LLMModel = &v
	}
	if u.LLMAPIKey != nil {
		v := strings.TrimSpace(*u.LLMAPIKey)
		if len(v) > 1000 || strings.ContainsAny(v, "\r\n") {
			return Errorf(EINVALID, "The API key is not valid.")
		}
		u.LLMAPIKey = &v
	}
	if u.SMTPPort != nil && (*u.SMTPPort < 0 || *u.SMTPPort > 65535) {
		return Errorf(EINVALID, "The SMTP port must be between 1 and 65535 (0: the default).")
	}
	if u.SMTPTLS != nil && *u.SMTPTLS != "" && *u.SMTPTLS != "none" && *u.SMTPTLS != "starttls" && *u.SMTPTLS != "tls" {
		return Errorf(EINVALID, "SMTP TLS must be none, starttls or tls.")
	}
	if u.SMTPFrom != nil {
		v := strings.TrimSpace(*u.SMTPFrom)
		if v != "" && !strings.Contains(v, "@") {
			return Errorf(EINVALID, "The From address %q is not an email address.", v)
		}
		u.SMTPFrom = &v
	}
	if u.SMTPHost != nil {
		v := strings.TrimSpace(*u.SMTPHost)
		if v != "" && !validHost(v) {
			return Errorf(EINVALID, "The SMTP server %q is not a host name or an IP address (smtp.example.com, 192.0.2.1).", Shorten(v, 80))
		}
		u.SMTPHost = &v
	}
	for _, f := range []*string{u.SMTPHost, u.SMTPUsername, u.SMTPPassword} {
		if f != nil && (len(*f) > 500 || strings.ContainsAny(*f, "\r\n")) {
			return Errorf(EINVALID, "An SMTP setting is not valid.")
		}
	}
	if u.Timezone != nil && *u.Timezone != "" {
		if _, err := LoadZone(*u.Timezone); err != nil {
			return err
		}
	}
	if u.WebhookURL != nil {
		v, err := validSaveURL(*u.WebhookURL, "webhook", "https://example.com/hooks/morningdeck")
		if err != nil {
			return err
		}
		u.WebhookURL = &v
	}
	if u.WallabagURL != nil {
		v, err := validSaveURL(*u.WallabagURL, "Wallabag address", "https://app.wallabag.it")
		if err != nil {
			return err
		}
		v = strings.TrimRight(v, "/")
		u.WallabagURL = &v
	}
	for _, f := range []*string{u.WallabagClientID, u.WallabagClientSecret, u.WallabagUsername, u.WallabagPassword} {
		if f == nil {
			continue
		}
		if *f = strings.TrimSpace(*f); len(*f) > 500 || strings.ContainsAny(*f, "\r\n") {
			return Errorf(EINVALID, "A Wallabag setting is not valid: each is one line of at most 500 characters.")
		}
	}
	if u.Density != nil && *u.Density != DensityComfortable && *u.Density != DensityCompact {
		return Errorf(EINVALID, "The density must be comfortable or compact.")
	}
	return nil
}

// SettingsStore keeps settings.
type SettingsStore interface {
	Settings(ctx context.Context, userID int64) (*Settings, error)
	UpdateSettings(ctx context.Context, userID int64, u SettingsUpdate) (*Settings, error)
}

// ParseTopics reads topics written one per line as "name: keyword, keyword".
func ParseTopics(s string) []Topic {
	var out []Topic
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		name, rest, _ := strings.Cut(line, ":")
		t := Topic{Name: strings.TrimSpace(name)}
		for _, k := range strings.Split(rest, ",") {
			if k = strings.TrimSpace(k); k != "" {
				t.Keywords = append(t.Keywords, k)
			}
		}
		out = append(out, t)
	}
	return out
}

// FormatTopics writes topics the way ParseTopics reads them.
func FormatTopics(ts []Topic) string {
	var b strings.Builder
	for _, t := range ts {
		b.WriteString(t.Name)
		if len(t.Keywords) > 0 {
			b.WriteString(": ")
			b.WriteString(strings.Join(t.Keywords, ", "))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// UserSettings is the service behind each user's settings: interests, topics, enricher, SMTP.
// (app.Settings is the settings themselves, hence the name.)
type UserSettings struct {
	Store SettingsStore
	// Rescorer has the user's unread items scored again when what scoring reads — the
	// interests and topics — changed, so the list re-ranks without waiting for new items
	// (the Feedback service: a retrain and a background re-score). nil: items keep the score
	// they had.
	Rescorer Rescorer
	// LLM is the operator's LLM: which models a user may name on it (CheckModel).
	LLM OperatorLLM
	Log *slog.Logger
}

// Rescorer has a user's unread items scored again (the Feedback service's Retrain).
type Rescorer interface {
	Retrain(ctx context.Context, userID int64) error
}

// NewUserSettings builds the settings service: its store, the Rescorer that re-scores a
// user's items when their interests or topics change (nil: items keep their scores) and the
// operator's LLM, whose models a user may name only as the operator allows.
func NewUserSettings(store SettingsStore, rescorer Rescorer, llm OperatorLLM, log *slog.Logger) *UserSettings {
	return &UserSettings{Store: store, Rescorer: rescorer, LLM: llm, Log: log}
}

// Get is the user's settings.
func (s *UserSettings) Get(ctx context.Context, userID int64) (*Settings, error) {
	return s.Store.Settings(ctx, userID)
}

// Update validates and applies a change to the user's settings.
func (s *UserSettings) Update(ctx context.Context, userID int64, u SettingsUpdate) (*Settings, error) {
	if err := u.Validate(); err != nil {
		return nil, err
	}
	var before *Settings
	if u.LLMModel != nil || u.LLMBaseURL != nil {
		cur, err := s.Store.Settings(ctx, userID)
		if err != nil {
			return nil, err
		}
		base, model := cur.LLMBaseURL, cur.LLMModel
		if u.LLMBaseURL != nil {
			base = *u.LLMBaseURL
		}
		if u.LLMModel != nil {
			model = *u.LLMModel
		}
		if err := s.LLM.CheckModel(base, model); err != nil {
			return nil, err
		}
		before = cur
	}
	if before == nil && s.Rescorer != nil && (u.Interests != nil || u.Topics != nil) {
		before, _ = s.Store.Settings(ctx, userID)
	}
	if s.Rescorer == nil || u.Interests == nil && u.Topics == nil {
		return s.Store.UpdateSettings(ctx, userID, u)
	}
	after, err := s.Store.UpdateSettings(ctx, userID, u)
	if err != nil || before == nil {
		return after, err
	}
	if before.Interests != after.Interests || !reflect.DeepEqual(before.Topics, after.Topics) {
		// The change is stored; a re-score that cannot be queued is logged, not failed: the
		// items are scored with the new interests when they are next enriched.
		if err := s.Rescorer.Retrain(ctx, userID); err != nil {
			logOrDiscard(s.Log).Warn("re-scoring after a change of interests not queued", "user", userID, "error", err)
		}
	}
	return after, nil
}

// validHost reports whether h is a host name (labels of at most 63 bytes of letters of any
// script, digits, hyphens and underscores, between dots) or an IP address, as a mail server's
// address must be.
func validHost(h string) bool {
	if net.ParseIP(strings.Trim(h, "[]")) != nil {
		return true
	}
	if len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(strings.TrimSuffix(h, "."), ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r > 127) {
				return false
			}
		}
	}
	return true
}
