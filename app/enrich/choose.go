package enrich

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/story"
)

// SettingsReader reads a user's settings.
type SettingsReader interface {
	Settings(ctx context.Context, userID int64) (*app.Settings, error)
}

// Chooser picks each user's enricher and LLM client: their settings where set, else the
// configured default. It keeps one LLM client per configuration (a client remembers what its
// server accepts).
type Chooser struct {
	Default  string    // app.EnricherEmbedded or app.EnricherLLM
	Embedded *Embedded // the embedded enricher, the fallback of every choice
	// LLM is the configured model (flags, environment); a user's settings override its fields.
	LLM      LLMOptions
	Settings SettingsReader
	Log      *slog.Logger
	// Dial, when set (the app is reachable beyond this machine), connects to every LLM server a
	// user chose instead of the operator's: the fetcher's SSRF guard, so that a base URL cannot
	// reach this machine or its network. It also keeps the servers' error bodies out of the
	// messages a user sees (a short status line only). The operator's own base URL is trusted.
	Dial func(ctx context.Context, network, address string) (net.Conn, error)
	// Exposed: the app is reachable beyond this machine, so users are not the operator: the
	// operator's API key goes only to the operator's base URL. In local mode the one user is
	// the operator, and the configured key serves any base URL they set.
	Exposed bool
	// Models are the models besides LLM.Model a user may name on the operator's endpoint
	// (--llm-models) when exposed; a stored model that is not allowed gets LLM.Model.
	Models []string

	mu   sync.Mutex
	llms map[llmKey]*LLM
}

type llmKey struct {
	base, model, key string
	own              bool // the operator's base URL
}

var (
	_ app.EnricherChooser = (*Chooser)(nil)
	_ app.OverviewWriter  = (*Chooser)(nil)
)

// Configured reports whether a model is configured by default.
func (c *Chooser) Configured() bool { return c.LLM.Model != "" }

// Operator is the operator's LLM as the settings service checks a user's model against it.
func (c *Chooser) Operator() app.OperatorLLM {
	return app.OperatorLLM{BaseURL: c.LLM.BaseURL, Model: c.LLM.Model, Models: c.Models, Exposed: c.Exposed}
}

// LLMFor returns the LLM client of a user's settings (falling back to the configured one), or
// nil when no model is configured anywhere. When exposed, the operator's API key goes only to
// the operator's base URL: a user who sets another one sends their own key, or none; and on the
// operator's base URL the model is the operator's choice (Operator().ModelFor).
func (c *Chooser) LLMFor(s *app.Settings) *LLM {
	base := cmp.Or(s.LLMBaseURL, c.LLM.BaseURL)
	own := app.SameLLMBase(base, c.LLM.BaseURL)
	key := s.LLMAPIKey
	if key == "" && (own || !c.Exposed) {
		key = c.LLM.APIKey
	}
	k := llmKey{base, c.Operator().ModelFor(s.LLMBaseURL, s.LLMModel), key, own}
	if k.model == "" {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.llms == nil {
		c.llms = map[llmKey]*LLM{}
	}
	if l := c.llms[k]; l != nil {
		return l
	}
	o := c.LLM
	o.BaseURL, o.Model, o.APIKey = k.base, k.model, k.key
	if c.Dial != nil {
		o.HideErrorBodies = true
		if !own {
			// No proxy from the environment: through a proxy the guard would only see the proxy.
			o.HTTPClient = &http.Client{Transport: &http.Transport{DialContext: c.Dial, Proxy: nil,
				TLSHandshakeTimeout: 10 * time.Second, ResponseHeaderTimeout: cmp.Or(o.Timeout, time.Minute)}}
		}
	}
	if o.Log == nil {
		o.Log = c.Log
	}
	l := NewLLM(o)
	c.llms[k] = l
	return l
}

// EnricherFor picks a user's enricher: their setting, else the default; the LLM only when a
// model is configured.
func (c *Chooser) EnricherFor(s *app.Settings) app.Enricher {
	if cmp.Or(s.Enricher, c.Default) == app.EnricherLLM {
		if l := c.LLMFor(s); l != nil {
			return l
		}
	}
	return c.Embedded
}

// Overview has the user's LLM write a report's opening paragraph, when the user enriches with an
// LLM; otherwise it returns "" and the report keeps the embedded overview.
func (c *Chooser) Overview(ctx context.Context, b *app.Briefing, r *app.Report) (string, error) {
	s, err := c.Settings.Settings(ctx, b.UserID)
	if err != nil {
		return "", err
	}
	if cmp.Or(s.Enricher, c.Default) != app.EnricherLLM {
		return "", nil
	}
	l := c.LLMFor(s)
	if l == nil {
		return "", nil
	}
	items := make([]OverviewItem, len(r.Items))
	for i, it := range r.Items {
		items[i] = OverviewItem{Title: it.Title, Source: it.SourceName, Summary: it.Summary}
	}
	return l.Overview(ctx, b.Name, cmp.Or(strings.TrimSpace(b.Focus), s.Interests), items)
}

// TestLLM is the settings page's "test connection": the user's LLM as they configured it.
func (c *Chooser) TestLLM(ctx context.Context, userID int64) error {
	s, err := c.Settings.Settings(ctx, userID)
	if err != nil {
		return err
	}
	l := c.LLMFor(s)
	if l == nil {
		return errors.New("no model is set: enter one in Settings, or start with --llm-model")
	}
	return l.Test(ctx)
}

// Ranker gives the briefings service the embedded enricher's scoring, story grouping and
// summaries (app.Ranker).
type Ranker struct{ Embedded *Embedded }

var _ app.Ranker = Ranker{}

// Score scores an item for in.Interests.
func (r Ranker) Score(in app.EnrichInput) (int, string) { return r.Embedded.Score(in) }

// Group groups reworded coverage of one event (see story.Group); each group's members are in rank order.
func (r Ranker) Group(stories []app.Story) [][]int {
	return story.Group(toStories(stories), story.GroupOptions{}).Groups
}

// AlsoCovered picks one other member per distinct source (see story.AlsoCovered).
func (r Ranker) AlsoCovered(stories []app.Story, members []int, limit int) []int {
	return story.AlsoCovered(toStories(stories), members, limit)
}

func toStories(stories []app.Story) []story.Story {
	s := make([]story.Story, len(stories))
	for i, st := range stories {
		s[i] = story.Story{Title: st.Title, Lead: st.Lead, At: st.At, Source: st.Source}
	}
	return s
}

// Summarize is the text's central sentences, at most maxWords words.
func (r Ranker) Summarize(text string, maxWords int) string { return Summarize(text, maxWords) }
