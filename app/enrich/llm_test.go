package enrich_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/enrich"
)

// chatServer speaks the chat-completions wire format. answer returns the status and the
// assistant message content for a request.
type chatServer struct {
	*httptest.Server
	mu       sync.Mutex
	requests []map[string]any
	headers  []http.Header
}

func newChatServer(t *testing.T, answer func(n int, req map[string]any) (int, string, http.Header)) *chatServer {
	s := &chatServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req map[string]any
		_ = json.Unmarshal(body, &req)
		s.mu.Lock()
		s.requests = append(s.requests, req)
		s.headers = append(s.headers, r.Header.Clone())
		n := len(s.requests)
		s.mu.Unlock()
		status, content, h := answer(n, req)
		for k, v := range h {
			w.Header()[k] = v
		}
		if status != http.StatusOK {
			w.WriteHeader(status)
			_, _ = w.Write([]byte(content))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": content}, "finish_reason": "stop"}},
			"usage":   map[string]any{"prompt_tokens": 321, "completion_tokens": 45},
		})
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *chatServer) formats() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, r := range s.requests {
		f, _ := r["response_format"].(map[string]any)
		if f == nil {
			out = append(out, "none")
		} else {
			out = append(out, f["type"].(string))
		}
	}
	return out
}

const good = `{"summary":"The council approved the bridge.","tags":["Bridges","council","bridges"],"topics":["Cities","Cooking"],"score":81,"reasoning":"Matches your interest in cities."}`

var topics = []app.Topic{{Name: "Cities", Keywords: []string{"council"}}, {Name: "Tech"}}

func item() app.EnrichInput {
	return app.EnrichInput{Title: "Bridge approved", Text: "The council approved the bridge.", Interests: "cities", Topics: topics}
}

func TestLLM(t *testing.T) {
	ctx := context.Background()
	ok := func(int, map[string]any) (int, string, http.Header) { return 200, good, nil }

	t.Run("a valid answer is validated: tags lowercased and deduplicated, topics only from the user's list, usage kept", func(t *testing.T) {
		srv := newChatServer(t, ok)
		l := enrich.NewLLM(enrich.LLMOptions{BaseURL: srv.URL, Model: "m"})
		res, err := l.Enrich(ctx, item())
		if err != nil {
			t.Fatal(err)
		}
		if res.Score != 81 || strings.Join(res.Tags, ",") != "bridges,council" || strings.Join(res.Topics, ",") != "Cities" ||
			res.EnrichedBy != "llm:m" || res.PromptTokens != 321 || res.CompletionTokens != 45 {
			t.Fatalf("%+v", res)
		}
		if f := srv.formats(); len(f) != 1 || f[0] != "json_schema" {
			t.Fatalf("formats %v", f)
		}
		if srv.headers[0].Get("Authorization") != "" {
			t.Fatal("an Authorization header without an API key")
		}
	})

	t.Run("a server refusing json_schema gets json_object, then prompt-only, and that is remembered", func(t *testing.T) {
		srv := newChatServer(t, func(n int, req map[string]any) (int, string, http.Header) {
			if f, _ := req["response_format"].(map[string]any); f != nil {
				return 400, `{"error":{"message":"response_format is not supported"}}`, nil
			}
			return 200, good, nil
		})
		l := enrich.NewLLM(enrich.LLMOptions{BaseURL: srv.URL, Model: "m", APIKey: "sk-secret"})
		if _, err := l.Enrich(ctx, item()); err != nil {
			t.Fatal(err)
		}
		if _, err := l.Enrich(ctx, item()); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(srv.formats(), ","); got != "json_schema,json_object,none,none" {
			t.Fatalf("formats %s", got)
		}
		if srv.headers[0].Get("Authorization") != "Bearer sk-secret" {
			t.Fatal("no Authorization header")
		}
	})

	t.Run("reasoning blocks and code fences around the JSON are tolerated", func(t *testing.T) {
		srv := newChatServer(t, func(int, map[string]any) (int, string, http.Header) {
			return 200, "<think>let me think {not json}</think>\nSure! ```json\n" + good + "\n```", nil
		})
		res, err := enrich.NewLLM(enrich.LLMOptions{BaseURL: srv.URL, Model: "m"}).Enrich(ctx, item())
		if err != nil || res.Score != 81 {
			t.Fatalf("%+v %v", res, err)
		}
	})

	for _, tc := range []struct {
		name, content string
		check         func(*app.Enrichment, error) bool
	}{
		{"malformed JSON is an invalid answer", `{"summary": "x", "tags": [`, func(r *app.Enrichment, err error) bool { return kind(err) == "invalid_output" }},
		{"no JSON at all is an invalid answer", `I cannot help with that.`, func(r *app.Enrichment, err error) bool { return kind(err) == "invalid_output" }},
		{"a score of 250 is clamped to 100", `{"summary":"s","tags":[],"topics":[],"score":250,"reasoning":"r"}`, func(r *app.Enrichment, err error) bool { return err == nil && r.Score == 100 }},
		{"a score given as a string is read", `{"summary":"s","tags":[],"topics":[],"score":"42","reasoning":"r"}`, func(r *app.Enrichment, err error) bool { return err == nil && r.Score == 42 }},
		{"a score that is not a number is invalid", `{"summary":"s","tags":[],"topics":[],"score":"abc","reasoning":"r"}`, func(r *app.Enrichment, err error) bool { return kind(err) == "invalid_output" }},
		{"nine tags are cut to five", `{"summary":"s","tags":["a1","b2","c3","d4","e5","f6","g7","h8","i9"],"topics":[],"score":1,"reasoning":"r"}`, func(r *app.Enrichment, err error) bool { return err == nil && len(r.Tags) == 5 }},
		{"an empty summary is invalid", `{"summary":"","tags":[],"topics":[],"score":1,"reasoning":"r"}`, func(r *app.Enrichment, err error) bool { return kind(err) == "invalid_output" }},
		{"a huge summary is bounded", `{"summary":"` + strings.Repeat("word ", 1000) + `","tags":[],"topics":[],"score":1,"reasoning":"r"}`, func(r *app.Enrichment, err error) bool { return err == nil && len(r.Summary) <= 604 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newChatServer(t, func(int, map[string]any) (int, string, http.Header) { return 200, tc.content, nil })
			res, err := enrich.NewLLM(enrich.LLMOptions{BaseURL: srv.URL, Model: "m"}).Enrich(ctx, item())
			if !tc.check(res, err) {
				t.Fatalf("result %+v, error %v", res, err)
			}
		})
	}

	t.Run("429 with Retry-After is rate_limited with the delay; 500 is a server error", func(t *testing.T) {
		srv := newChatServer(t, func(n int, _ map[string]any) (int, string, http.Header) {
			if n == 1 {
				return 429, `{"error":{"message":"slow down"}}`, http.Header{"Retry-After": {"30"}}
			}
			return 500, `boom`, nil
		})
		l := enrich.NewLLM(enrich.LLMOptions{BaseURL: srv.URL, Model: "m"})
		_, err := l.Enrich(ctx, item())
		var le *enrich.Error
		if !errors.As(err, &le) || le.Kind != "rate_limited" || le.RetryDelay() != 30*time.Second || !strings.Contains(le.Message, "slow down") {
			t.Fatalf("first: %v", err)
		}
		if _, err := l.Enrich(ctx, item()); kind(err) != "server" || !strings.Contains(err.Error(), "500") {
			t.Fatalf("second: %v", err)
		}
	})

	t.Run("a hanging server is a timeout, quickly", func(t *testing.T) {
		release := make(chan struct{})
		srv := newChatServer(t, func(int, map[string]any) (int, string, http.Header) { <-release; return 200, good, nil })
		defer close(release)
		start := time.Now()
		_, err := enrich.NewLLM(enrich.LLMOptions{BaseURL: srv.URL, Model: "m", Timeout: 200 * time.Millisecond}).Enrich(ctx, item())
		if kind(err) != "timeout" || time.Since(start) > 3*time.Second {
			t.Fatalf("%v after %s", err, time.Since(start))
		}
	})

	t.Run("a huge answer, garbage bytes and a connection closed mid-answer are clear errors", func(t *testing.T) {
		huge := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			chunk := []byte(strings.Repeat("a", 64<<10))
			_, _ = w.Write([]byte(`{"choices":[{"message":{"content":"`))
			for range 100 { // 6.4 MB, more than the 4 MiB accepted
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}))
		defer huge.Close()
		_, err := enrich.NewLLM(enrich.LLMOptions{BaseURL: huge.URL, Model: "m"}).Enrich(ctx, item())
		if kind(err) != "invalid_output" || !strings.Contains(err.Error(), "larger than 4 MiB") {
			t.Fatalf("huge: %v", err)
		}
		garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte{0xff, 0xfe, 0x00, 0x13, 0x37, '{', '"'})
		}))
		defer garbage.Close()
		if _, err := enrich.NewLLM(enrich.LLMOptions{BaseURL: garbage.URL, Model: "m"}).Enrich(ctx, item()); kind(err) != "invalid_output" {
			t.Fatalf("garbage: %v", err)
		}
		hangup := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "1000")
			_, _ = w.Write([]byte(`{"choices":[{"message":`))
			w.(http.Flusher).Flush()
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				_ = conn.Close()
			}
		}))
		defer hangup.Close()
		if _, err := enrich.NewLLM(enrich.LLMOptions{BaseURL: hangup.URL, Model: "m"}).Enrich(ctx, item()); kind(err) != "network" || !strings.Contains(err.Error(), "cut off") {
			t.Fatalf("hang-up: %v", err)
		}
	})

	t.Run("an unreachable server is a network error; Test says so", func(t *testing.T) {
		l := enrich.NewLLM(enrich.LLMOptions{BaseURL: "http://127.0.0.1:9/v1", Model: "m"})
		if _, err := l.Enrich(ctx, item()); kind(err) != "network" {
			t.Fatalf("%v", err)
		}
		if err := l.Test(ctx); err == nil || !strings.Contains(err.Error(), "could not be reached") {
			t.Fatalf("Test: %v", err)
		}
	})

	t.Run("a long article is cut to fit the token budget", func(t *testing.T) {
		srv := newChatServer(t, ok)
		in := item()
		in.Text = strings.Repeat("The council met again about the bridge and its budget. ", 5000)
		if _, err := enrich.NewLLM(enrich.LLMOptions{BaseURL: srv.URL, Model: "m", MaxPromptTokens: 1000}).Enrich(ctx, in); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(srv.requests[0]["messages"])
		if len(b) > 4600 {
			t.Fatalf("request messages are %d bytes for a 1000-token budget", len(b))
		}
	})

	t.Run("a user's prompt template replaces the default", func(t *testing.T) {
		srv := newChatServer(t, ok)
		l := enrich.NewLLM(enrich.LLMOptions{BaseURL: srv.URL, Model: "m", PromptTemplate: "Judge {{.Title}} for {{.Interests}}: {{.Text}}"})
		if _, err := l.Enrich(ctx, item()); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(srv.requests[0]["messages"])
		if !strings.Contains(string(b), "Judge Bridge approved for cities: The council approved the bridge.") {
			t.Fatalf("messages %s", b)
		}
	})
}

func kind(err error) string {
	var le *enrich.Error
	if errors.As(err, &le) {
		return le.Kind
	}
	return ""
}

func TestLLMOverview(t *testing.T) {
	ctx := context.Background()
	stories := []enrich.OverviewItem{
		{Title: "Council approves the river bridge", Source: "City News", Summary: "The council voted 9 to 2."},
		{Title: "Tram line delayed", Source: "Metro Daily", Summary: "Works slip to spring."},
	}

	t.Run("the paragraph comes from the JSON answer, asked as a JSON object with the stories in the prompt", func(t *testing.T) {
		srv := newChatServer(t, func(int, map[string]any) (int, string, http.Header) {
			return 200, "```json\n{\"overview\": \"The city moves on transport:\\n the bridge is approved while the tram slips.\"}\n```", nil
		})
		l := enrich.NewLLM(enrich.LLMOptions{BaseURL: srv.URL, Model: "m"})
		got, err := l.Overview(ctx, "Morning city", "urban transport", stories)
		if err != nil {
			t.Fatal(err)
		}
		if got != "The city moves on transport: the bridge is approved while the tram slips." {
			t.Fatalf("overview %q", got)
		}
		if f := srv.formats(); len(f) != 1 || f[0] != "json_object" {
			t.Fatalf("formats %v", f)
		}
		msgs := srv.requests[0]["messages"].([]any)
		prompt := msgs[1].(map[string]any)["content"].(string)
		for _, want := range []string{"Morning city", "urban transport", "1. Council approves the river bridge (City News)", "2. Tram line delayed"} {
			if !strings.Contains(prompt, want) {
				t.Fatalf("prompt lacks %q:\n%s", want, prompt)
			}
		}
	})

	t.Run("a model that answers in plain text is taken at its word; a refused format falls back to prompt-only", func(t *testing.T) {
		srv := newChatServer(t, func(n int, req map[string]any) (int, string, http.Header) {
			if req["response_format"] != nil {
				return 400, `{"error":{"message":"response_format is not supported"}}`, nil
			}
			return 200, "Two transport stories lead today: a bridge and a delayed tram.", nil
		})
		l := enrich.NewLLM(enrich.LLMOptions{BaseURL: srv.URL, Model: "m"})
		got, err := l.Overview(ctx, "b", "", stories)
		if err != nil || got != "Two transport stories lead today: a bridge and a delayed tram." {
			t.Fatalf("%q %v", got, err)
		}
		if f := srv.formats(); strings.Join(f, ",") != "json_object,none" {
			t.Fatalf("formats %v", f)
		}
	})

	t.Run("an empty or broken answer and a failing server are errors", func(t *testing.T) {
		for _, answer := range []string{`{"overview": ""}`, `{"overview": `, "  "} {
			srv := newChatServer(t, func(int, map[string]any) (int, string, http.Header) { return 200, answer, nil })
			l := enrich.NewLLM(enrich.LLMOptions{BaseURL: srv.URL, Model: "m"})
			if _, err := l.Overview(ctx, "b", "", stories); kind(err) != "invalid_output" {
				t.Fatalf("answer %q: %v", answer, err)
			}
		}
		srv := newChatServer(t, func(int, map[string]any) (int, string, http.Header) { return 500, "boom", nil })
		l := enrich.NewLLM(enrich.LLMOptions{BaseURL: srv.URL, Model: "m"})
		if _, err := l.Overview(ctx, "b", "", stories); err == nil {
			t.Fatal("no error from a failing server")
		}
		if _, err := l.Overview(ctx, "b", "", nil); err == nil {
			t.Fatal("no error without stories")
		}
	})
}
