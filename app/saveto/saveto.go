// Package saveto sends saved items elsewhere: to a user's webhook, as JSON signed with their
// secret, and to a Wallabag server through its API (OAuth password grant, then POST
// /api/entries.json). It implements app.ItemSender.
package saveto

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

var _ app.ItemSender = (*Sender)(nil)

// Headers of a webhook call. The signature is HMAC-SHA256, keyed by the user's secret, of the
// timestamp, a dot and the body: a receiver recomputes it, compares in constant time and
// refuses old timestamps (replays).
const (
	HeaderEvent     = "X-MorningDeck-Event"
	HeaderTimestamp = "X-MorningDeck-Timestamp"
	HeaderSignature = "X-MorningDeck-Signature" // "sha256=" and the hex digest
)

// Payload is the webhook's body.
type Payload struct {
	Event  string        `json:"event"` // "item.saved"
	SentAt time.Time     `json:"sent_at"`
	Item   app.SavedItem `json:"item"`
}

// Sign is the signature header's value for a body sent at ts.
func Sign(secret string, ts int64, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(m, "%d.", ts)
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// Sender sends over HTTP. The zero value works: no proxy restrictions, a 15-second timeout.
type Sender struct {
	// Dial connects to the user's servers; nil is a plain dialer. An app reachable by others
	// passes the fetch guard's, so a user cannot make it call this machine's network.
	Dial      func(ctx context.Context, network, address string) (net.Conn, error)
	Timeout   time.Duration // each call; 0: 15 s
	UserAgent string
	Clock     app.Clock

	once   sync.Once
	client *http.Client
	mu     sync.Mutex
	tokens map[string]token // Wallabag access tokens by account
}

type token struct {
	value   string
	expires time.Time
}

// maxAnswer bounds what is read of a server's answer.
const maxAnswer = 1 << 20

func (s *Sender) http() *http.Client {
	s.once.Do(func() {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.Proxy = nil
		if s.Dial != nil {
			tr.DialContext = s.Dial
		}
		tr.ResponseHeaderTimeout = s.timeout()
		s.client = &http.Client{Transport: tr, Timeout: s.timeout(),
			CheckRedirect: func(req *http.Request, via []*http.Request) error {
				if len(via) >= 3 {
					return errors.New("too many redirects")
				}
				return nil
			}}
	})
	return s.client
}

func (s *Sender) timeout() time.Duration {
	if s.Timeout > 0 {
		return s.Timeout
	}
	return 15 * time.Second
}

func (s *Sender) now() time.Time {
	if s.Clock != nil {
		return s.Clock.Now()
	}
	return time.Now()
}

func (s *Sender) userAgent() string {
	if s.UserAgent != "" {
		return s.UserAgent
	}
	return "MorningDeck (+https://github.com/morningdeck/morningdeck)"
}

// Webhook posts the item as JSON to url, signed with secret. Any 2xx answer is success.
func (s *Sender) Webhook(ctx context.Context, url, secret string, it app.SavedItem) error {
	now := s.now().UTC()
	body, err := json.Marshal(Payload{Event: "item.saved", SentAt: now.Truncate(time.Second), Item: it})
	if err != nil {
		return fmt.Errorf("saveto: webhook payload: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return app.Errorf(app.EINVALID, "The webhook's address is not valid.")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", s.userAgent())
	req.Header.Set(HeaderEvent, "item.saved")
	req.Header.Set(HeaderTimestamp, strconv.FormatInt(now.Unix(), 10))
	req.Header.Set(HeaderSignature, Sign(secret, now.Unix(), body))
	res, err := s.http().Do(req)
	if err != nil {
		return unreachable("The webhook", req.URL.Host, err)
	}
	defer res.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(res.Body, maxAnswer))
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return app.Errorf(app.EINVALID, "The webhook answered %s%s.", res.Status, said(answer))
	}
	return nil
}

// Wallabag adds the item's page to the account: Wallabag reads the page itself; the item's
// title and tags go with it.
func (s *Sender) Wallabag(ctx context.Context, a app.WallabagAccount, it app.SavedItem) error {
	tok, err := s.wallabagToken(ctx, a, false)
	if err != nil {
		return err
	}
	form := url.Values{"url": {it.URL}}
	if it.Title != "" {
		form.Set("title", it.Title)
	}
	if len(it.Tags) > 0 {
		form.Set("tags", strings.Join(it.Tags, ","))
	}
	post := func(tok string) (*http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.URL+"/api/entries.json", strings.NewReader(form.Encode()))
		if err != nil {
			return nil, app.Errorf(app.EINVALID, "The Wallabag address is not valid.")
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Accept", "application/json")
		req.Header.Set("User-Agent", s.userAgent())
		req.Header.Set("Authorization", "Bearer "+tok)
		return s.http().Do(req)
	}
	res, err := post(tok)
	if err == nil && res.StatusCode == http.StatusUnauthorized { // the token expired early: sign in again once
		res.Body.Close()
		if tok, err = s.wallabagToken(ctx, a, true); err != nil {
			return err
		}
		res, err = post(tok)
	}
	if err != nil {
		var ae *app.Error
		if errors.As(err, &ae) {
			return err
		}
		return unreachable("Wallabag", hostOf(a.URL), err)
	}
	defer res.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(res.Body, maxAnswer))
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return app.Errorf(app.EINVALID, "Wallabag did not keep the page: it answered %s%s.", res.Status, said(answer))
	}
	return nil
}

// CheckWallabag signs in, to tell the reader before the account is stored whether it works.
func (s *Sender) CheckWallabag(ctx context.Context, a app.WallabagAccount) error {
	_, err := s.wallabagToken(ctx, a, true)
	return err
}

// wallabagToken is an access token for the account: kept until a minute before it expires,
// asked for again when fresh is set.
func (s *Sender) wallabagToken(ctx context.Context, a app.WallabagAccount, fresh bool) (string, error) {
	key := a.URL + "\x00" + a.ClientID + "\x00" + a.Username + "\x00" + hashOf(a.ClientSecret+"\x00"+a.Password)
	s.mu.Lock()
	t, ok := s.tokens[key]
	s.mu.Unlock()
	if ok && !fresh && s.now().Before(t.expires) {
		return t.value, nil
	}
	form := url.Values{"grant_type": {"password"}, "client_id": {a.ClientID}, "client_secret": {a.ClientSecret},
		"username": {a.Username}, "password": {a.Password}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.URL+"/oauth/v2/token", strings.NewReader(form.Encode()))
	if err != nil {
		return "", app.Errorf(app.EINVALID, "The Wallabag address is not valid.")
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", s.userAgent())
	res, err := s.http().Do(req)
	if err != nil {
		return "", unreachable("Wallabag", hostOf(a.URL), err)
	}
	defer res.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(res.Body, maxAnswer))
	switch {
	case res.StatusCode == http.StatusBadRequest || res.StatusCode == http.StatusUnauthorized:
		var e struct {
			Error       string `json:"error"`
			Description string `json:"error_description"`
		}
		_ = json.Unmarshal(answer, &e)
		if e.Error == "invalid_client" {
			return "", app.Errorf(app.EINVALID, "Wallabag does not know this client: check the client ID and secret (Wallabag → API clients management).")
		}
		return "", app.Errorf(app.EINVALID, "Wallabag refused the sign-in: check the user name and password.")
	case res.StatusCode == http.StatusNotFound:
		return "", app.Errorf(app.EINVALID, "%s has no Wallabag API (%s/oauth/v2/token answered 404 Not Found): check the address.", hostOf(a.URL), a.URL)
	case res.StatusCode < 200 || res.StatusCode > 299:
		return "", app.Errorf(app.EINVALID, "Wallabag answered %s when signing in%s.", res.Status, said(answer))
	}
	var got struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   int    `json:"expires_in"`
	}
	if err := json.Unmarshal(answer, &got); err != nil || got.AccessToken == "" {
		return "", app.Errorf(app.EINVALID, "%s answered the sign-in with no access token: is it a Wallabag server?", hostOf(a.URL))
	}
	life := time.Duration(got.ExpiresIn) * time.Second
	if life <= 0 {
		life = time.Hour
	}
	s.mu.Lock()
	if s.tokens == nil {
		s.tokens = map[string]token{}
	}
	s.tokens[key] = token{value: got.AccessToken, expires: s.now().Add(life - time.Minute)}
	s.mu.Unlock()
	return got.AccessToken, nil
}

func hashOf(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}

func hostOf(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		return u.Host
	}
	return raw
}

// unreachable says in plain words why a server could not be reached.
func unreachable(what, host string, err error) error {
	var dnsErr *net.DNSError
	var opErr *net.OpError
	switch {
	case errors.As(err, &dnsErr):
		return app.Errorf(app.EINVALID, "%s could not be reached: the host %s was not found.", what, host)
	case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
		return app.Errorf(app.EINVALID, "%s at %s did not answer in time.", what, host)
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return app.Errorf(app.EINVALID, "%s could not be reached at %s: the connection was refused or blocked.", what, host)
	case strings.Contains(err.Error(), "certificate") || strings.Contains(err.Error(), "tls:"):
		return app.Errorf(app.EINVALID, "%s at %s: the secure connection failed (its TLS certificate is not valid here).", what, host)
	}
	return app.Errorf(app.EINVALID, "%s could not be reached at %s.", what, host)
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

// said quotes the start of a server's answer when it is short text (an error message).
func said(b []byte) string {
	s := strings.TrimSpace(string(b))
	if s == "" || strings.HasPrefix(s, "<") {
		return ""
	}
	return ` ("` + app.Shorten(strings.Join(strings.Fields(s), " "), 120) + `")`
}
