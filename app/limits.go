package app

import (
	"context"
	"fmt"
	"strings"
)

// Per-account limits an operator can set (--max-sources-per-user, --max-folders-per-user,
// --max-briefings-per-user, --max-opml-bytes): far above what a household follows, low enough
// that one account cannot fill the server (issue 27: 20,000 sources from a 1.5 MB OPML in 8 s).
const (
	DefaultMaxSources   = 5000
	DefaultMaxFolders   = 500
	DefaultMaxBriefings = 100
	DefaultMaxOPMLBytes = 4 << 20
)

// Limits are the per-account limits; a field of 0 is its default.
type Limits struct {
	Sources   int   // sources one account follows
	Folders   int   // folders one account has
	Briefings int   // briefings one account has
	OPMLBytes int64 // the largest OPML file imported
}

func (l Limits) sources() int   { return orDefault(l.Sources, DefaultMaxSources) }
func (l Limits) folders() int   { return orDefault(l.Folders, DefaultMaxFolders) }
func (l Limits) briefings() int { return orDefault(l.Briefings, DefaultMaxBriefings) }

// OPML is the largest OPML file imported, in bytes.
func (l Limits) OPML() int64 { return orDefault(l.OPMLBytes, DefaultMaxOPMLBytes) }

// orDefault is v when it is set (positive), else def.
func orDefault[T int | int64](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}

func sourceLimitError(max int) error {
	return Errorf(EFORBIDDEN, "This account follows %d %s, the most this server allows (--max-sources-per-user): delete some to add others.", max, Plural(max, "source", "sources"))
}

func folderLimitError(max int) error {
	return Errorf(EFORBIDDEN, "This account has %d %s, the most this server allows (--max-folders-per-user): use a folder you have, or delete one.", max, Plural(max, "folder", "folders"))
}

// checkSourceRoom refuses a new source when the user follows the most sources allowed.
func (s *Sources) checkSourceRoom(ctx context.Context, userID int64) error {
	sum, err := s.Store.SourceSummary(ctx, userID)
	if err != nil {
		return err
	}
	if sum.Total >= s.Limits.sources() {
		return sourceLimitError(s.Limits.sources())
	}
	return nil
}

// checkFolderRoom refuses a folder named name when it is new and the user has the most
// folders allowed.
func (s *Sources) checkFolderRoom(ctx context.Context, userID int64, name string) error {
	fs, err := s.Store.Folders(ctx, userID, FolderLookupCap)
	if err != nil {
		return err
	}
	for _, f := range fs {
		if strings.EqualFold(f.Name, strings.Join(strings.Fields(name), " ")) {
			return nil
		}
	}
	if len(fs) >= s.Limits.folders() {
		return folderLimitError(s.Limits.folders())
	}
	return nil
}

// FormatSize writes a size in bytes as people read it: "4 MiB", "1.5 MiB", "512 KiB", "300 bytes".
func FormatSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
