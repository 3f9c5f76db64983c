package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/morningdeck/morningdeck/app"
)

func parseID(s string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id < 1 {
		return 0, fmt.Errorf("%q is not a source ID (see `morningdeck source list`)", s)
	}
	return id, nil
}

// cliError shows a domain error's message for a person.
func cliError(err error) error {
	if app.ErrorCode(err) != app.EINTERNAL {
		return errors.New(app.ErrorMessage(err))
	}
	return err
}

func oneLineText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = strings.ToValidUTF8(s[:n], "") + "…"
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
