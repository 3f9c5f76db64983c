package views

import (
	"encoding/base64"
	"net/http"
	"strings"
)

// Flash is a message shown once, on the page after an action.
type Flash struct {
	Kind    string // success, info or error
	Message string
}

// AutoDismiss reports whether the flash goes away by itself: errors stay until dismissed.
func (f Flash) AutoDismiss() bool { return f.Kind != "error" }

const flashCookie = "md_flash"

// flashSuccess and flashError are flashes of msg as it is (it is not a format).
func flashSuccess(msg string) Flash { return Flash{Kind: "success", Message: msg} }
func flashError(msg string) Flash   { return Flash{Kind: "error", Message: msg} }

// setFlash keeps f in a short-lived cookie across the redirect of a form post.
func setFlash(w http.ResponseWriter, f Flash) {
	v := base64.RawURLEncoding.EncodeToString([]byte(f.Kind + "\n" + f.Message))
	http.SetCookie(w, &http.Cookie{
		Name: flashCookie, Value: v, Path: "/", MaxAge: 60,
		HttpOnly: true, SameSite: http.SameSiteLaxMode,
	})
}

// takeFlash reads and clears the flash cookie.
func takeFlash(w http.ResponseWriter, r *http.Request) []Flash {
	c, err := r.Cookie(flashCookie)
	if err != nil || c.Value == "" {
		return nil
	}
	http.SetCookie(w, &http.Cookie{Name: flashCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteLaxMode})
	b, err := base64.RawURLEncoding.DecodeString(c.Value)
	if err != nil {
		return nil
	}
	kind, msg, ok := strings.Cut(string(b), "\n")
	if !ok || msg == "" {
		return nil
	}
	switch kind {
	case "success", "info", "error":
	default:
		kind = "info"
	}
	return []Flash{{Kind: kind, Message: msg}}
}
