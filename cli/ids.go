package cli

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/morningdeck/morningdeck/app"
)

// parseID reads the ID of an entity named by kind ("source", "item", "briefing", "report"):
// a mistake says which kind of ID was expected and where to find one.
func parseID(kind, s string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id < 1 {
		return 0, fmt.Errorf("%q is not %s %s ID (see %s)", s, article(kind), kind, idHelp[kind])
	}
	return id, nil
}

// idHelp says where to find the IDs of each kind.
var idHelp = map[string]string{
	"source":   "`morningdeck source list`",
	"item":     "`morningdeck items list`",
	"briefing": "`morningdeck brief list`",
	"report":   "`morningdeck brief list`, which shows each briefing's latest report",
}

func article(word string) string {
	if strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

// cliError shows a domain error's message for a person.
func cliError(err error) error {
	if app.ErrorCode(err) != app.EINTERNAL {
		return errors.New(app.ErrorMessage(err))
	}
	return err
}

// oneLineText is s on one line, cut at a word to at most n characters.
func oneLineText(s string, n int) string {
	return app.Shorten(strings.Join(strings.Fields(s), " "), n)
}
