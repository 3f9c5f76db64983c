package app

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/crypto/bcrypt"
)

// User is an account; it owns sources, items, briefings and reports. In local mode the
// default user has no password.
type User struct {
	ID          int64     `json:"id"`
	Name        string    `json:"name"`
	Admin       bool      `json:"admin"`
	HasPassword bool      `json:"-"`
	CreatedAt   time.Time `json:"createdAt"`
}

// APIToken is a named token for the API and the CLI; its secret is shown once, at creation.
type APIToken struct {
	ID         int64      `json:"id"`
	Name       string     `json:"name"`
	CreatedAt  time.Time  `json:"createdAt"`
	LastUsedAt *time.Time `json:"lastUsedAt"`
}

// AccountStore keeps users, sessions and API tokens. Secrets are stored as hashes.
type AccountStore interface {
	Users(ctx context.Context) ([]*User, error)
	UserByName(ctx context.Context, name string) (*User, string, error) // the user and its password hash
	UserByID(ctx context.Context, id int64) (*User, error)
	// CreateUser adds an account. The first account with a password takes over the default
	// user (id 1) and its data, and is an admin.
	CreateUser(ctx context.Context, name, passwordHash string, admin bool) (*User, error)
	SetPassword(ctx context.Context, userID int64, passwordHash string) error
	DeleteUser(ctx context.Context, userID int64) error
	CreateSession(ctx context.Context, userID int64, tokenHash string, expires time.Time) error
	SessionUser(ctx context.Context, tokenHash string, now time.Time) (*User, error)
	DeleteSession(ctx context.Context, tokenHash string) error
	CreateAPIToken(ctx context.Context, userID int64, name, tokenHash string) (*APIToken, error)
	TokenUser(ctx context.Context, tokenHash string, now time.Time) (*User, error)
	APITokens(ctx context.Context, userID int64) ([]*APIToken, error)
	DeleteAPIToken(ctx context.Context, userID, id int64) error
	Secret(ctx context.Context, name string) ([]byte, error)
}

// SessionLifetime is how long a sign-in lasts.
const SessionLifetime = 30 * 24 * time.Hour

// MinPasswordLength is the shortest password accepted.
const MinPasswordLength = 10

// Accounts signs people in and out and checks API tokens.
type Accounts struct {
	Store AccountStore
	Clock Clock
	Cost  int // bcrypt cost; 0 is bcrypt.DefaultCost
}

// dummyHash is compared against when a user does not exist, so a wrong name takes as long as
// a wrong password. It is a bcrypt hash at bcrypt.DefaultCost written out: generating it when
// the package loaded cost every start of the binary — the server and each CLI command — 70 ms
// of CPU (issue 14).
var dummyHash = []byte("$2a$10$AwzDkeWV83f3BLorPwGkHelZL9OygU0i.fTQTgbNoZfyTAwtY3XiW")

// ValidateUserName checks a user name: 1–64 letters, digits, dot, dash, underscore, @.
func ValidateUserName(name string) error {
	if name == "" || len(name) > 64 {
		return Errorf(EINVALID, "A user name has 1 to 64 characters.")
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-@", r)) {
			return Errorf(EINVALID, "A user name uses letters, digits, dots, dashes, underscores and @ only.")
		}
	}
	return nil
}

// ValidatePassword checks a new password's length.
func ValidatePassword(pw string) error {
	if utf8.RuneCountInString(pw) < MinPasswordLength {
		return Errorf(EINVALID, "A password has at least %d characters.", MinPasswordLength)
	}
	if len(pw) > 72 {
		return Errorf(EINVALID, "A password has at most 72 bytes.")
	}
	return nil
}

func (a *Accounts) hash(pw string) (string, error) {
	cost := a.Cost
	if cost == 0 {
		cost = bcrypt.DefaultCost
	}
	b, err := bcrypt.GenerateFromPassword([]byte(pw), cost)
	return string(b), err
}

// AddUser creates an account with a password.
func (a *Accounts) AddUser(ctx context.Context, name, password string, admin bool) (*User, error) {
	name = strings.TrimSpace(name)
	if err := ValidateUserName(name); err != nil {
		return nil, err
	}
	if err := ValidatePassword(password); err != nil {
		return nil, err
	}
	h, err := a.hash(password)
	if err != nil {
		return nil, err
	}
	return a.Store.CreateUser(ctx, name, h, admin)
}

// SetPassword changes a user's password, signs out their sessions and revokes their API tokens
// (whoever made one meanwhile loses it; the user makes new ones).
func (a *Accounts) SetPassword(ctx context.Context, userID int64, password string) error {
	if err := ValidatePassword(password); err != nil {
		return err
	}
	h, err := a.hash(password)
	if err != nil {
		return err
	}
	return a.Store.SetPassword(ctx, userID, h)
}

// CheckPassword returns the user when the name and password match, else an EUNAUTHORIZED
// error that does not say which was wrong (and takes as long either way).
func (a *Accounts) CheckPassword(ctx context.Context, name, password string) (*User, error) {
	u, hash, err := a.Store.UserByName(ctx, strings.TrimSpace(name))
	if err != nil && ErrorCode(err) != ENOTFOUND {
		return nil, err
	}
	if u == nil || hash == "" {
		_ = bcrypt.CompareHashAndPassword(dummyHash, []byte(password))
		return nil, Errorf(EUNAUTHORIZED, "Wrong user name or password.")
	}
	if bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) != nil {
		return nil, Errorf(EUNAUTHORIZED, "Wrong user name or password.")
	}
	return u, nil
}

// Login checks a name and password and opens a session; it returns the session token for the cookie.
func (a *Accounts) Login(ctx context.Context, name, password string) (*User, string, time.Time, error) {
	u, err := a.CheckPassword(ctx, name, password)
	if err != nil {
		return nil, "", time.Time{}, err
	}
	token := randomToken("")
	expires := ClockOrSystem(a.Clock).Now().Add(SessionLifetime)
	if err := a.Store.CreateSession(ctx, u.ID, HashToken(token), expires); err != nil {
		return nil, "", time.Time{}, err
	}
	return u, token, expires, nil
}

// Session returns the user of a session token, or an EUNAUTHORIZED error.
func (a *Accounts) Session(ctx context.Context, token string) (*User, error) {
	if token == "" {
		return nil, Errorf(EUNAUTHORIZED, "Sign in first.")
	}
	return a.Store.SessionUser(ctx, HashToken(token), ClockOrSystem(a.Clock).Now())
}

// Logout ends a session.
func (a *Accounts) Logout(ctx context.Context, token string) error {
	return a.Store.DeleteSession(ctx, HashToken(token))
}

// NewAPIToken creates a token for the API; the returned secret is not stored and not shown again.
func (a *Accounts) NewAPIToken(ctx context.Context, userID int64, name string) (*APIToken, string, error) {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 100 {
		return nil, "", Errorf(EINVALID, "Name the token (1 to 100 characters), e.g. after where it is used.")
	}
	secret := randomToken("md_")
	t, err := a.Store.CreateAPIToken(ctx, userID, name, HashToken(secret))
	return t, secret, err
}

// TokenUser returns the user of an API token, or an EUNAUTHORIZED error.
func (a *Accounts) TokenUser(ctx context.Context, token string) (*User, error) {
	if token == "" {
		return nil, Errorf(EUNAUTHORIZED, "An API token is needed.")
	}
	return a.Store.TokenUser(ctx, HashToken(token), ClockOrSystem(a.Clock).Now())
}

// FeedToken is the secret a briefing's Atom feed URL carries when the app requires sign-in,
// so a feed reader can subscribe without an account.
func (a *Accounts) FeedToken(ctx context.Context, briefingID int64) (string, error) {
	key, err := a.Store.Secret(ctx, "feed")
	if err != nil {
		return "", err
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte("briefing-feed:" + strconv.FormatInt(briefingID, 10)))
	return hex.EncodeToString(m.Sum(nil))[:32], nil
}

// CheckFeedToken reports whether token is the briefing's feed token.
func (a *Accounts) CheckFeedToken(ctx context.Context, briefingID int64, token string) bool {
	want, err := a.FeedToken(ctx, briefingID)
	return err == nil && hmac.Equal([]byte(want), []byte(token))
}

// HashToken is how session and API tokens are stored.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

func randomToken(prefix string) string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return prefix + base64.RawURLEncoding.EncodeToString(b)
}

// Users lists the accounts.
func (a *Accounts) Users(ctx context.Context) ([]*User, error) { return a.Store.Users(ctx) }

// User is the account of that name.
func (a *Accounts) User(ctx context.Context, name string) (*User, error) {
	u, _, err := a.Store.UserByName(ctx, name)
	return u, err
}

// DeleteUser deletes an account and its data.
func (a *Accounts) DeleteUser(ctx context.Context, userID int64) error {
	return a.Store.DeleteUser(ctx, userID)
}

// APITokens lists the user's API tokens (never their secrets).
func (a *Accounts) APITokens(ctx context.Context, userID int64) ([]*APIToken, error) {
	return a.Store.APITokens(ctx, userID)
}

// DeleteAPIToken revokes one of the user's API tokens.
func (a *Accounts) DeleteAPIToken(ctx context.Context, userID, id int64) error {
	return a.Store.DeleteAPIToken(ctx, userID, id)
}
