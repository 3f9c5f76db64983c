package enrich

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

// DefaultPrompt is the user message sent for each item. It is a template in Go's text/template
// syntax (the part promptTemplate reads: {{.Field}}, {{if .Field}}…{{else}}…{{end}}) with the
// fields .Title, .Source, .Link, .Published, .Interests, .Topics (names, comma-separated) and
// .Text (the article, cut to its most central sentences to fit the token budget). Set your own with
// LLMOptions.PromptTemplate; the answer must stay the JSON object described here.
const DefaultPrompt = `Read this news item and answer with one JSON object, nothing else:
{"summary": "2-3 sentence neutral summary, at most 60 words",
 "tags": ["up to 5 short lowercase keywords"],
 "topics": ["zero to 3 names chosen ONLY from this list: {{.Topics}}"],
 "score": 0-100 relevance for a reader whose interests are: {{if .Interests}}{{.Interests}}{{else}}(not stated: score general interest){{end}},
 "reasoning": "one short line saying what matched or why not"}

Title: {{.Title}}
Source: {{.Source}}
Published: {{.Published}}
Link: {{.Link}}

{{.Text}}`

const systemPrompt = "You are a careful news editor. You answer with a single JSON object and nothing else."

// LLMOptions for NewLLM.
type LLMOptions struct {
	BaseURL         string // default http://127.0.0.1:11434/v1 (Ollama)
	Model           string
	APIKey          string // optional; never logged
	Timeout         time.Duration
	MaxConcurrent   int    // default 2
	PromptTemplate  string // default DefaultPrompt
	MaxPromptTokens int    // default 3000 (estimated as characters / 4)
	HTTPClient      *http.Client
	Log             *slog.Logger
	// HideErrorBodies keeps what the server says in an error answer out of the error (the
	// status line only; the body is logged): set for a server a user chose while the app is
	// exposed, so that an internal service's answer is not shown back to that user.
	HideErrorBodies bool
}

// Response formats, from the strictest; the first one a server accepts is remembered.
const (
	modeJSONSchema int32 = iota
	modeJSONObject
	modePromptOnly
)

// LLM enriches items with any OpenAI-compatible chat-completions endpoint.
type LLM struct {
	opts LLMOptions
	tmpl *promptTemplate
	sem  chan struct{}
	mode atomic.Int32
	log  *slog.Logger
}

var _ app.Enricher = (*LLM)(nil)

// NewLLM returns the LLM enricher. An invalid PromptTemplate falls back to DefaultPrompt (logged).
func NewLLM(o LLMOptions) *LLM {
	if o.BaseURL == "" {
		o.BaseURL = "http://127.0.0.1:11434/v1"
	}
	o.BaseURL = strings.TrimRight(o.BaseURL, "/")
	if o.Timeout <= 0 {
		o.Timeout = time.Minute
	}
	if o.MaxConcurrent <= 0 {
		o.MaxConcurrent = 2
	}
	if o.MaxPromptTokens <= 0 {
		o.MaxPromptTokens = 3000
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{}
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	l := &LLM{opts: o, sem: make(chan struct{}, o.MaxConcurrent), log: o.Log.With("component", "llm", "model", o.Model)}
	tmpl, err := parsePrompt(o.PromptTemplate)
	if o.PromptTemplate == "" || err != nil {
		if err != nil {
			l.log.Warn("invalid prompt template; using the default", "error", err)
		}
		if tmpl, err = parsePrompt(DefaultPrompt); err != nil {
			panic("enrich: DefaultPrompt: " + err.Error())
		}
	}
	l.tmpl = tmpl
	return l
}

// Name is "llm:MODEL".
func (l *LLM) Name() string { return "llm:" + l.opts.Model }

// Error is a failed LLM request. Message is meant for a person.
type Error struct {
	Kind       string // rate_limited, server, timeout, invalid_output, unauthorized, network, bad_request
	Message    string
	RetryAfter time.Duration
	Err        error
}

func (e *Error) Error() string { return e.Message }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// RetryDelay is how long the server asked us to wait (429/503 Retry-After).
func (e *Error) RetryDelay() time.Duration { return e.RetryAfter }

// Enrich sends one request for the item (trying the response formats the server may not
// accept) and validates the answer; an invalid answer is an error.
func (l *LLM) Enrich(ctx context.Context, in app.EnrichInput) (*app.Enrichment, error) {
	select {
	case l.sem <- struct{}{}:
		defer func() { <-l.sem }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	prompt, err := l.prompt(in)
	if err != nil {
		return nil, err
	}
	for {
		mode := l.mode.Load()
		content, usage, err := l.complete(ctx, prompt, mode, 0)
		var le *Error
		if errors.As(err, &le) && le.Kind == "bad_request" && mode < modePromptOnly {
			l.log.Info("the server refused this response format; trying a simpler one", "mode", mode, "error", le.Message)
			l.mode.CompareAndSwap(mode, mode+1)
			continue
		}
		if err != nil {
			return nil, err
		}
		out, err := parseEnrichment(content, in.Topics)
		if err != nil {
			return nil, err
		}
		out.EnrichedBy = l.Name()
		out.PromptTokens, out.CompletionTokens = usage.PromptTokens, usage.CompletionTokens
		return out, nil
	}
}

// Test checks the endpoint, model and key with a tiny request.
func (l *LLM) Test(ctx context.Context) error {
	_, _, err := l.complete(ctx, `Answer with {"ok": true}`, modePromptOnly, 20)
	if err != nil {
		return fmt.Errorf("%s at %s: %w", l.opts.Model, l.opts.BaseURL, err)
	}
	return nil
}

func (l *LLM) prompt(in app.EnrichInput) (string, error) {
	var names []string
	for _, t := range in.Topics {
		names = append(names, t.Name)
	}
	published := "unknown"
	if in.PublishedAt != nil {
		published = in.PublishedAt.UTC().Format("2006-01-02 15:04 UTC")
	}
	data := map[string]string{"Title": in.Title, "Source": in.SourceName, "Link": in.Link, "Published": published,
		"Interests": in.Interests, "Topics": strings.Join(names, ", ")}
	var probe strings.Builder
	l.tmpl.execute(&probe, data)
	budget := l.opts.MaxPromptTokens*4 - probe.Len() - len(systemPrompt)
	data["Text"] = CentralSentences(in.Text, max(budget, 200))
	var b strings.Builder
	l.tmpl.execute(&b, data)
	return b.String(), nil
}

type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

var enrichmentSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"summary":   map[string]any{"type": "string"},
		"tags":      map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
		"topics":    map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
		"score":     map[string]any{"type": "integer"},
		"reasoning": map[string]any{"type": "string"},
	},
	"required":             []string{"summary", "tags", "topics", "score", "reasoning"},
	"additionalProperties": false,
}

const maxResponseBytes = 4 << 20

// complete sends one chat-completions request and returns the message content.
func (l *LLM) complete(ctx context.Context, prompt string, mode int32, maxTokens int) (string, usage, error) {
	body := map[string]any{
		"model":       l.opts.Model,
		"temperature": 0.2,
		"messages": []map[string]string{
			{"role": "system", "content": systemPrompt},
			{"role": "user", "content": prompt},
		},
	}
	if maxTokens > 0 {
		body["max_tokens"] = maxTokens
	}
	switch mode {
	case modeJSONSchema:
		body["response_format"] = map[string]any{"type": "json_schema",
			"json_schema": map[string]any{"name": "enrichment", "strict": true, "schema": enrichmentSchema}}
	case modeJSONObject:
		body["response_format"] = map[string]any{"type": "json_object"}
	}
	payload, _ := json.Marshal(body)
	ctx, cancel := context.WithTimeout(ctx, l.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.opts.BaseURL+"/chat/completions", bytes.NewReader(payload))
	if err != nil {
		return "", usage{}, &Error{Kind: "bad_request", Message: "The LLM base URL is not valid: " + err.Error()}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if l.opts.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+l.opts.APIKey)
	}
	resp, err := l.opts.HTTPClient.Do(req)
	if err != nil {
		var ne net.Error
		switch {
		case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout():
			return "", usage{}, &Error{Kind: "timeout", Message: fmt.Sprintf("The LLM did not answer within %s.", l.opts.Timeout), Err: err}
		case ctx.Err() != nil:
			return "", usage{}, ctx.Err()
		}
		return "", usage{}, &Error{Kind: "network", Message: "The LLM could not be reached: " + shortErr(err), Err: err}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		if ctx.Err() != nil {
			return "", usage{}, &Error{Kind: "timeout", Message: fmt.Sprintf("The LLM did not answer within %s.", l.opts.Timeout), Err: err}
		}
		return "", usage{}, &Error{Kind: "network", Message: "The LLM's answer was cut off: " + shortErr(err), Err: err}
	}
	if len(raw) > maxResponseBytes {
		return "", usage{}, &Error{Kind: "invalid_output", Message: "The LLM's answer is larger than 4 MiB."}
	}
	if resp.StatusCode != http.StatusOK {
		var e *Error
		if l.opts.HideErrorBodies {
			e = statusError(resp, nil)
			l.log.Warn("the LLM answered with an error", "status", resp.StatusCode, "body", oneLine(redactKey(string(raw), l.opts.APIKey), 300))
		} else {
			e = statusError(resp, raw)
		}
		// A server may quote the key it refused ("Incorrect API key provided: sk-…"): the
		// message reaches logs and pages, the key must not.
		e.Message = redactKey(e.Message, l.opts.APIKey)
		return "", usage{}, e
	}
	var out struct {
		Choices []struct {
			Message struct {
				Content          string `json:"content"`
				ReasoningContent string `json:"reasoning_content"`
			} `json:"message"`
		} `json:"choices"`
		Usage usage `json:"usage"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || len(out.Choices) == 0 {
		return "", usage{}, &Error{Kind: "invalid_output", Message: "The LLM's answer is not a chat completion.", Err: err}
	}
	return out.Choices[0].Message.Content, out.Usage, nil
}

func statusError(resp *http.Response, body []byte) *Error {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	detail := strings.TrimSpace(string(body))
	if json.Unmarshal(body, &e) == nil && len(e.Error) > 0 {
		var m struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(e.Error, &m) == nil && m.Message != "" {
			detail = m.Message
		} else {
			var s string
			if json.Unmarshal(e.Error, &s) == nil {
				detail = s
			}
		}
	}
	if len(detail) > 300 {
		detail = detail[:300] + "…"
	}
	code := resp.StatusCode
	msg := fmt.Sprintf("The LLM answered %d %s", code, http.StatusText(code))
	if detail != "" {
		msg += ": " + detail
	}
	switch {
	case code == http.StatusTooManyRequests || code == http.StatusServiceUnavailable:
		return &Error{Kind: "rate_limited", Message: msg, RetryAfter: retryAfter(resp.Header.Get("Retry-After"))}
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return &Error{Kind: "unauthorized", Message: msg + " (check the API key)"}
	case code == http.StatusBadRequest || code == http.StatusUnprocessableEntity:
		return &Error{Kind: "bad_request", Message: msg}
	case code == http.StatusNotFound:
		return &Error{Kind: "server", Message: msg + " (check the base URL and the model name)"}
	}
	return &Error{Kind: "server", Message: msg}
}

// redactKey masks key, and any long part of it, in msg.
func redactKey(msg, key string) string {
	if len(key) < 8 {
		if key != "" {
			msg = strings.ReplaceAll(msg, key, "[key]")
		}
		return msg
	}
	msg = strings.ReplaceAll(msg, key, "[key]")
	// A partial echo (the key's first or last 8 or more characters) is masked too.
	for n := len(key) - 1; n >= 8; n-- {
		msg = strings.ReplaceAll(msg, key[:n], "[key]")
		msg = strings.ReplaceAll(msg, key[len(key)-n:], "[key]")
	}
	return msg
}

func retryAfter(h string) time.Duration {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0
	}
	if s, err := strconv.Atoi(h); err == nil && s >= 0 {
		return min(time.Duration(s)*time.Second, time.Hour)
	}
	if t, err := http.ParseTime(h); err == nil {
		return min(max(time.Until(t), 0), time.Hour)
	}
	return 0
}

func shortErr(err error) string {
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 && i < len(s)-2 {
		return s[i+2:]
	}
	return s
}

var (
	thinkBlock = regexp.MustCompile(`(?s)<think>.*?</think>`)
	fence      = regexp.MustCompile("(?s)```(?:json|JSON)?\\s*(.*?)```")
)

// parseEnrichment reads the model's answer tolerantly (reasoning blocks, code fences, text
// around the object) and validates it.
func parseEnrichment(content string, topics []app.Topic) (*app.Enrichment, error) {
	s := thinkBlock.ReplaceAllString(content, "")
	if m := fence.FindStringSubmatch(s); m != nil {
		s = m[1]
	}
	start, end := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}')
	if start < 0 || end <= start {
		return nil, invalid("no JSON object in the answer", content)
	}
	var raw struct {
		Summary   string          `json:"summary"`
		Tags      []string        `json:"tags"`
		Topics    []string        `json:"topics"`
		Score     json.RawMessage `json:"score"`
		Reasoning string          `json:"reasoning"`
	}
	if err := json.Unmarshal([]byte(s[start:end+1]), &raw); err != nil {
		return nil, invalid("the JSON does not parse: "+err.Error(), content)
	}
	score, ok := parseScore(raw.Score)
	if !ok {
		return nil, invalid("the score is not a number", content)
	}
	out := &app.Enrichment{Score: max(0, min(100, score)), Reasoning: oneLine(raw.Reasoning, 300)}
	out.Summary = oneLine(raw.Summary, 600)
	if out.Summary == "" {
		return nil, invalid("the summary is empty", content)
	}
	seen := map[string]bool{}
	for _, t := range raw.Tags {
		t = strings.ToLower(oneLine(t, 40))
		if t != "" && !seen[t] && len(out.Tags) < 5 {
			seen[t] = true
			out.Tags = append(out.Tags, t)
		}
	}
	for _, name := range raw.Topics {
		for _, t := range topics {
			if strings.EqualFold(strings.TrimSpace(name), t.Name) && !contains(out.Topics, t.Name) && len(out.Topics) < TopicLimit {
				out.Topics = append(out.Topics, t.Name)
			}
		}
	}
	return out, nil
}

func parseScore(raw json.RawMessage) (int, bool) {
	var f float64
	if json.Unmarshal(raw, &f) == nil {
		return int(f + 0.5), true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if f, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "/100")), 64); err == nil {
			return int(f + 0.5), true
		}
	}
	return 0, false
}

func invalid(why, content string) *Error {
	if len(content) > 200 {
		content = content[:200] + "…"
	}
	return &Error{Kind: "invalid_output", Message: "The LLM's answer is not valid: " + why + ".", Err: errors.New(content)}
}

// oneLine collapses whitespace and cuts s to at most n bytes at a word boundary.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := strings.ToValidUTF8(s[:n], "")
	if i := strings.LastIndexByte(cut, ' '); i > n/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:") + "…"
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// OverviewItem is one story of a report, for Overview.
type OverviewItem struct{ Title, Source, Summary string }

// Overview writes the opening paragraph of a report: what its main stories are and how they
// connect, in a few sentences of plain prose.
func (l *LLM) Overview(ctx context.Context, briefing, focus string, items []OverviewItem) (string, error) {
	if len(items) == 0 {
		return "", errors.New("no stories to introduce")
	}
	select {
	case l.sem <- struct{}{}:
		defer func() { <-l.sem }()
	case <-ctx.Done():
		return "", ctx.Err()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Write the opening paragraph of the news briefing %q", oneLine(briefing, 100))
	if f := oneLine(focus, 300); f != "" {
		fmt.Fprintf(&b, " for a reader interested in: %s", f)
	}
	b.WriteString(".\nIn 2 to 4 sentences (at most 90 words) say what the main stories are and how they connect. " +
		"Plain prose: no list, no markdown, no greeting, no links. " +
		"Answer with a JSON object: {\"overview\": \"...\"}\n\nThe stories, most important first:\n")
	for i, it := range items {
		if i == 15 {
			break
		}
		fmt.Fprintf(&b, "%d. %s (%s): %s\n", i+1, oneLine(it.Title, 200), oneLine(it.Source, 80), oneLine(it.Summary, 300))
	}
	// The enrichment JSON schema does not fit here: at most ask for a JSON object.
	mode := max(l.mode.Load(), modeJSONObject)
	for {
		content, _, err := l.complete(ctx, b.String(), mode, 400)
		var le *Error
		if errors.As(err, &le) && le.Kind == "bad_request" && mode < modePromptOnly {
			mode++
			continue
		}
		if err != nil {
			return "", err
		}
		return parseOverview(content)
	}
}

// parseOverview takes the paragraph out of the model's answer: the JSON object's "overview",
// or, from a model that ignored the format, its plain text.
func parseOverview(content string) (string, error) {
	s := thinkBlock.ReplaceAllString(content, "")
	if m := fence.FindStringSubmatch(s); m != nil {
		s = m[1]
	}
	text := s
	if start, end := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}'); start >= 0 && end > start {
		var raw struct {
			Overview string `json:"overview"`
		}
		if err := json.Unmarshal([]byte(s[start:end+1]), &raw); err != nil {
			return "", invalid("the JSON does not parse: "+err.Error(), content)
		}
		text = raw.Overview
	}
	text = oneLine(text, 900)
	if len(strings.Fields(text)) < 3 {
		return "", invalid("the overview is empty", content)
	}
	return text, nil
}
