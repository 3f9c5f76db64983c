package app

import (
	"cmp"
	"slices"
	"strings"
)

// DefaultLLMBaseURL is the LLM base URL when none is configured (Ollama's, on this machine).
const DefaultLLMBaseURL = "http://127.0.0.1:11434/v1"

// SameLLMBase reports whether two LLM base URLs name the same endpoint ("" is the default).
func SameLLMBase(a, b string) bool {
	norm := func(s string) string {
		return strings.ToLower(strings.TrimRight(cmp.Or(strings.TrimSpace(s), DefaultLLMBaseURL), "/"))
	}
	return norm(a) == norm(b)
}

// OperatorLLM is the operator's LLM (--llm-base-url, --llm-model, --llm-models) as far as it
// decides which model a user may have on it. When the app is exposed, users are not the
// operator: on the operator's endpoint (their key, their machine, their bill) a user may name
// only the operator's model or one of the models the operator allows; with a base URL of their
// own, any model. In local mode the one user is the operator and chooses freely.
type OperatorLLM struct {
	BaseURL string   // the operator's endpoint ("" : DefaultLLMBaseURL)
	Model   string   // the operator's model; always allowed
	Models  []string // further models a user may name on the operator's endpoint
	Exposed bool
}

// onOperators reports whether settings with base URL base (empty: the operator's) use the
// operator's endpoint while users are not the operator.
func (o OperatorLLM) onOperators(base string) bool {
	return o.Exposed && SameLLMBase(cmp.Or(strings.TrimSpace(base), o.BaseURL), o.BaseURL)
}

// allowed reports whether model may be named on the operator's endpoint.
func (o OperatorLLM) allowed(model string) bool {
	return model == "" || model == o.Model || slices.Contains(o.Models, model)
}

// ModelFor is the model a user's settings get: theirs, unless it is on the operator's endpoint
// and not allowed there (named before the operator changed the list), then the operator's.
func (o OperatorLLM) ModelFor(base, model string) string {
	if o.onOperators(base) && !o.allowed(model) {
		return o.Model
	}
	return cmp.Or(model, o.Model)
}

// CheckModel refuses a model a user may not name on the operator's endpoint.
func (o OperatorLLM) CheckModel(base, model string) error {
	if !o.onOperators(base) || o.allowed(model) {
		return nil
	}
	var offered []string
	for _, m := range append([]string{o.Model}, o.Models...) {
		if m != "" && !slices.Contains(offered, m) {
			offered = append(offered, m)
		}
	}
	if len(offered) == 0 {
		return Errorf(EINVALID, "This server's LLM does not offer a choice of model: leave the model empty, or set your own LLM base URL and API key to use %q.", Shorten(model, 80))
	}
	quoted := make([]string, len(offered))
	for i, m := range offered {
		quoted[i] = "\"" + m + "\""
	}
	return Errorf(EINVALID, "The model %q is not offered on this server's LLM: choose %s (or leave it empty), or set your own LLM base URL and API key to use another model.",
		Shorten(model, 80), strings.Join(quoted, " or "))
}
