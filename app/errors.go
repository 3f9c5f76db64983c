package app

import (
	"errors"
	"fmt"
	"time"
)

// Error codes that the web and CLI layers map to statuses and messages.
const (
	ECONFLICT = "conflict"
	EINTERNAL = "internal"
	EINVALID  = "invalid"
	ENOTFOUND = "not_found"
	// EUNAUTHORIZED: not signed in, or a wrong password or token.
	EUNAUTHORIZED = "unauthorized"
	// EFORBIDDEN: signed in, but not allowed (an admin's page).
	EFORBIDDEN = "forbidden"
	// ETOOMANY: too many attempts; try again later.
	ETOOMANY = "too_many"
)

// Error is a domain error with a code and a message meant for a person.
type Error struct {
	Code    string
	Message string
	// RetryAfter, when set, is how long to wait before trying again (ETOOMANY): the API's
	// Retry-After.
	RetryAfter time.Duration
}

func (e *Error) Error() string { return e.Message }

// Errorf returns an *Error with the given code.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of err, EINTERNAL for errors that are not *Error, and "" for nil.
func ErrorCode(err error) string {
	var e *Error
	if err == nil {
		return ""
	} else if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the message of err fit to show a person; internal errors get a generic one.
func ErrorMessage(err error) string {
	var e *Error
	if err == nil {
		return ""
	} else if errors.As(err, &e) {
		return e.Message
	}
	return "Internal error."
}

// RetryAfterOf is how long err says to wait before trying again (an *Error's RetryAfter), 0 if
// it does not say.
func RetryAfterOf(err error) time.Duration {
	var e *Error
	if errors.As(err, &e) {
		return e.RetryAfter
	}
	return 0
}

// ErrNothingToSearch is a search made of punctuation alone: there is no word to look for.
var ErrNothingToSearch = Errorf(EINVALID, "Nothing to search for: type a word, not only punctuation.")
