package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/morningdeck/morningdeck/app"
)

func TestPlainMessage(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{app.Errorf(app.ENOTFOUND, "Item 9 not found."), "Item 9 not found."},
		{fmt.Errorf("sqlite: backup: %s already exists", "/b/x.db"), "/b/x.db already exists"},
		{fmt.Errorf("sqlite: insert items: %w", errors.New("database is locked")), "database is locked"},
		{fmt.Errorf("cannot open the database /p/m.db: %w", fmt.Errorf("sqlite: create data directory: %w", &fs.PathError{Op: "mkdir", Path: "/p", Err: fs.ErrPermission})),
			"cannot open the database /p/m.db: could not create the folder /p: permission denied"},
		{&fs.PathError{Op: "open", Path: "/x/feeds.opml", Err: fs.ErrNotExist}, "could not open /x/feeds.opml: file does not exist"},
		{errors.New("--log-level \"loud\": use debug, info, warn or error"), "--log-level \"loud\": use debug, info, warn or error"},
	} {
		if got := plainMessage(c.err); got != c.want {
			t.Errorf("plainMessage(%q) = %q, want %q", c.err, got, c.want)
		}
	}
}
