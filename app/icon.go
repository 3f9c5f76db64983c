package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/url"
	"time"
)

// Icon is a source's favicon: bytes checked to be a PNG, ICO, GIF, JPEG or WebP image.
type Icon struct {
	ContentType string
	Data        []byte
	ETag        string // a hash of Data, for HTTP caching
	FetchedAt   time.Time
}

// Icons are fetched once and refreshed after IconRefresh; at most MaxIconBytes are kept.
const (
	IconRefresh  = 30 * 24 * time.Hour
	MaxIconBytes = 64 << 10
)

// IconFetcher finds and fetches the icon of a site, given one of its addresses.
type IconFetcher interface {
	Icon(ctx context.Context, siteURL string) (*Icon, error)
}

// IconStore keeps the sources' icons.
type IconStore interface {
	// IconsDue returns up to limit sources (id and address) whose icon was never fetched or was
	// fetched before cutoff.
	IconsDue(ctx context.Context, cutoff time.Time, limit int) ([]SourceName, error)
	// SaveIcon stores an icon, or with a nil icon remembers that the site has none (problem
	// says why) so that it is not asked again before the refresh.
	SaveIcon(ctx context.Context, sourceID int64, icon *Icon, problem string, at time.Time) error
	// SourceIcon returns a source's stored icon; ENOTFOUND when it has none.
	SourceIcon(ctx context.Context, userID, sourceID int64) (*Icon, error)
}

// IconETag is the ETag of icon bytes.
func IconETag(data []byte) string {
	sum := sha256.Sum256(data)
	return `"` + hex.EncodeToString(sum[:12]) + `"`
}

// SniffIcon returns the image type of icon bytes by their magic numbers, or "" for anything
// else (SVG included: a script-capable format is refused rather than sanitized).
func SniffIcon(b []byte) string {
	switch {
	case len(b) >= 8 && string(b[:8]) == "\x89PNG\r\n\x1a\n":
		return "image/png"
	case len(b) >= 6 && b[0] == 0 && b[1] == 0 && (b[2] == 1 || b[2] == 2) && b[3] == 0 && (b[4] != 0 || b[5] != 0):
		return "image/x-icon"
	case len(b) >= 6 && (string(b[:6]) == "GIF87a" || string(b[:6]) == "GIF89a"):
		return "image/gif"
	case len(b) >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF:
		return "image/jpeg"
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return "image/webp"
	}
	return ""
}

// RefreshIcons fetches the icons of up to limit sources that have none yet or an old one,
// one after the other, and returns how many it tried. It runs apart from the fetches (the
// server's icon loop), so that it never holds one up; a site without a usable icon keeps the
// initials until the next refresh.
func (s *Sources) RefreshIcons(ctx context.Context, limit int) (int, error) {
	if s.Icons == nil {
		return 0, nil // icons are off (a CLI command, or a test): the initials stay
	}
	store := s.Store
	now := ClockOrSystem(s.Clock).Now().UTC()
	due, err := store.IconsDue(ctx, now.Add(-IconRefresh), limit)
	if err != nil {
		return 0, err
	}
	for i, src := range due {
		if ctx.Err() != nil {
			return i, ctx.Err()
		}
		site := src.Name
		if u, err := url.Parse(site); err == nil && u.Host != "" {
			site = u.Scheme + "://" + u.Host + "/"
		}
		icon, err := s.Icons.Icon(ctx, site)
		problem := ""
		if err != nil {
			if ctx.Err() != nil {
				return i, ctx.Err()
			}
			problem = ErrorMessage(err)
			var ae *Error
			if !errors.As(err, &ae) {
				problem = err.Error()
			}
			icon = nil
			s.log().Debug("no icon", "source", src.ID, "site", site, "reason", problem)
		}
		if err := store.SaveIcon(ctx, src.ID, icon, problem, now); err != nil {
			return i, err
		}
	}
	return len(due), nil
}

// Icon returns a source's stored icon; ENOTFOUND when it has none.
func (s *Sources) Icon(ctx context.Context, userID, sourceID int64) (*Icon, error) {
	return s.Store.SourceIcon(ctx, userID, sourceID)
}
