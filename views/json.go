package views

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

const (
	maxJSONBytes     = 1 << 20
	defaultItemLimit = 50
	maxItemLimit     = 500
)

type apiErrorBody struct {
	Error string `json:"error"`
}

func jsonTime(t *time.Time) *string {
	if t == nil || t.IsZero() {
		return nil
	}
	s := t.UTC().Format(time.RFC3339)
	return &s
}

func nonNil(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(true)
	_ = enc.Encode(v)
}

// writeJSONTagged answers 200 with v, or 304 without a body when unchanged (answerTagged).
func writeJSONTagged(w http.ResponseWriter, r *http.Request, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(true)
	_ = enc.Encode(v)
	answerTagged(w, r, "application/json; charset=utf-8", buf.Bytes())
}

// answerTagged answers 200 with body and an ETag of its bytes, or 304 Not Modified without a
// body when the request's If-None-Match names that ETag: a client polling a list (the API, the
// Sources page's live list) pays for it only when it changed. The answer may be kept and
// revalidated, never used unasked.
func answerTagged(w http.ResponseWriter, r *http.Request, contentType string, body []byte) {
	sum := sha256.Sum256(body)
	tag := `"` + hex.EncodeToString(sum[:12]) + `"`
	h := w.Header()
	h.Set("ETag", tag)
	h.Set("Cache-Control", "private, no-cache")
	h.Set("Vary", "Authorization, Cookie")
	for _, t := range strings.Split(r.Header.Get("If-None-Match"), ",") {
		if t = strings.TrimPrefix(strings.TrimSpace(t), "W/"); t == tag || t == "*" {
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	h.Set("Content-Type", contentType)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// apiError answers a JSON request that failed (see failure); internal errors are logged and not shown.
func (s *Server) apiError(w http.ResponseWriter, r *http.Request, err error) {
	status, msg, internal := failure(err)
	if internal {
		s.logFailure(r, "api request failed", err)
	}
	setRetryAfter(w, err)
	writeJSON(w, status, apiErrorBody{Error: msg})
}

// decode reads one JSON object into v: at most 1 MiB, no unknown fields, nothing after it.
// Its errors are *app.Error with a message that says what to fix.
func decode(w http.ResponseWriter, r *http.Request, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxJSONBytes))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		if dec.More() {
			return app.Errorf(app.EINVALID, "The request body must hold a single JSON object.")
		}
		if _, err := dec.Token(); err != io.EOF {
			return app.Errorf(app.EINVALID, "The request body must hold a single JSON object.")
		}
		return nil
	}
	var (
		syntax    *json.SyntaxError
		typ       *json.UnmarshalTypeError
		tooBig    *http.MaxBytesError
		fieldName string
	)
	switch {
	case errors.As(err, &tooBig):
		return app.Errorf(app.EINVALID, "The request body is too large: at most 1 MiB.")
	case errors.As(err, &syntax):
		return app.Errorf(app.EINVALID, "The request body is not valid JSON (at byte %d).", syntax.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return app.Errorf(app.EINVALID, "The request body is not valid JSON: it ends too early.")
	case errors.Is(err, io.EOF):
		return app.Errorf(app.EINVALID, "The request body is empty: send a JSON object.")
	case errors.As(err, &typ):
		if typ.Field == "" {
			return app.Errorf(app.EINVALID, "The request body must be a JSON object.")
		}
		return app.Errorf(app.EINVALID, "Field %q must be %s, not %s.", typ.Field, jsonKind(typ.Type.Kind().String()), jsonValue(typ.Value))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		fieldName = strings.TrimPrefix(err.Error(), "json: unknown field ")
		if len(fieldName) > 60 {
			fieldName = strings.ToValidUTF8(fieldName[:60], "") + "…"
		}
		return app.Errorf(app.EINVALID, "Unknown field %s.", fieldName)
	case errors.As(err, new(*time.ParseError)):
		return app.Errorf(app.EINVALID, "A date and time must be written like 2026-03-14T07:00:00Z.")
	}
	// An error of a field's own decoding: its text names Go types, so it is not shown.
	return app.Errorf(app.EINVALID, "The request body holds a value of the wrong form: check the fields' types.")
}

// jsonKind says what JSON a Go kind takes.
func jsonKind(k string) string {
	switch k {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "a whole number"
	case "float32", "float64":
		return "a number"
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "slice", "array":
		return "a list"
	case "map", "struct":
		return "an object"
	}
	return "of another type"
}

// jsonValue says what an UnmarshalTypeError's Value ("string", "number 1.5", "array"…) was.
func jsonValue(v string) string {
	switch v {
	case "string":
		return "a string"
	case "number":
		return "a number"
	case "bool":
		return "true or false"
	case "array":
		return "a list"
	case "object":
		return "an object"
	}
	if n, ok := strings.CutPrefix(v, "number "); ok {
		if len(n) > 30 {
			n = n[:30] + "…"
		}
		return n
	}
	return "a value of another type"
}

func (s *Server) apiID(w http.ResponseWriter, r *http.Request) (int64, bool) {
	id, ok := pathID(r)
	if !ok {
		writeJSON(w, http.StatusNotFound, apiErrorBody{Error: fmt.Sprintf("Source %q not found.", r.PathValue("id"))})
	}
	return id, ok
}
