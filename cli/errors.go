package cli

import (
	"errors"
	"io/fs"
	"regexp"
	"strings"

	"github.com/morningdeck/morningdeck/app"
)

// internalPrefix is what the storage and queue packages put before their errors to say
// where in the code they arose ("sqlite: backup: ", "queue: enqueue: "): a reader of the
// command line has no use for it.
var internalPrefix = regexp.MustCompile(`(?:^|\b)(?:sqlite|queue)(?:: [a-z][a-z ]*)*: `)

// plainMessage is what the command line says of err: an app error's message as it is; any
// other without the internal prefixes, and a file the system could not open or create named
// with the system's reason ("could not create the folder /x: permission denied").
func plainMessage(err error) string {
	var ae *app.Error
	if errors.As(err, &ae) && ae.Error() == err.Error() {
		return ae.Message
	}
	msg := err.Error()
	var pe *fs.PathError
	if errors.As(err, &pe) && strings.HasSuffix(msg, pe.Error()) {
		what := map[string]string{"mkdir": "create the folder", "open": "open", "stat": "find", "lstat": "find",
			"read": "read", "write": "write", "remove": "remove", "rename": "rename", "link": "write"}[pe.Op]
		if what == "" {
			what = "use"
		}
		msg = strings.TrimSuffix(msg, pe.Error()) + "could not " + what + " " + pe.Path + ": " + pe.Err.Error()
	}
	return internalPrefix.ReplaceAllString(msg, "")
}
