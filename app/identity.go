package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// Item identity (issue 15). An item's key in its source (Item.GUID, unique per source) is the
// GUID its feed gives it, except where the feed gives one GUID to different posts — a constant,
// a date, a counter that restarts — which would otherwise keep the first of them forever and
// never let the others in. Such posts are keyed by IdentityKey(guid, link):
//
//   - within one fetch, when items share a GUID but not a link, each of them;
//   - across fetches, when a fetched item's GUID is already stored with another link AND
//     another title: a new post. A post whose title changed (same link) or whose link changed
//     (same title) stays one item.
//
// A post keeps its key from fetch to fetch: every key already stored for a GUID (the GUID
// itself, its IdentityKeys, pruned ones) is looked up in one query per fetch with a body
// (IdentityStore), and an item that matches one by link, or else by title, takes that key.
// Items without a GUID have one made by the parser (their link, or their title and date): two
// such items with the same made GUID have the same link, so this never splits them.

// identityPrefix starts every IdentityKey.
const identityPrefix = "guid+link:"

// IdentityKey is the key of a post whose feed gives its GUID to other posts too. All the keys
// of one GUID start with IdentityPrefix(guid), so that a store finds them with one range of
// its (source, guid) index.
func IdentityKey(guid, link string) string {
	sum := sha256.Sum256([]byte(guid + "\n" + link))
	return IdentityPrefix(guid) + hex.EncodeToString(sum[:16])
}

// IdentityPrefixLen is the length of every IdentityPrefix.
const IdentityPrefixLen = len(identityPrefix) + 16 + 1

// IdentityPrefix is what every IdentityKey of guid starts with.
func IdentityPrefix(guid string) string {
	sum := sha256.Sum256([]byte(guid))
	return identityPrefix + hex.EncodeToString(sum[:8]) + ":"
}

// KnownItem is an item of a source, or the tombstone of a pruned one, as identity needs it.
type KnownItem struct {
	Key   string // its key in the store (items.guid)
	GUID  string // the feed GUID it was looked up for
	Link  string
	Title string
	// Published is the stored item's publication date (nil if it had none or it was pruned).
	Published *time.Time
	// PrunedAt is set for a pruned item (a tombstone: no link, no title).
	PrunedAt *time.Time
}

// IdentityQuery asks for the stored items and tombstones of a source that a fetch's items
// may be: those whose key is one of Keys, or starts with one of Prefixes (each
// IdentityPrefixLen long). Both map what to look for to the feed GUID it stands for.
type IdentityQuery struct {
	SourceID int64
	Keys     map[string]string
	Prefixes map[string]string
}

// IdentityStore finds the items a fetch's GUIDs may stand for, in one read.
type IdentityStore interface {
	KnownItems(ctx context.Context, q IdentityQuery) ([]KnownItem, error)
}

// NewIdentityQuery is the query for the known items of a fetch's items.
func NewIdentityQuery(sourceID int64, items []Item) IdentityQuery {
	q := IdentityQuery{SourceID: sourceID, Keys: map[string]string{}, Prefixes: map[string]string{}}
	for _, it := range items {
		if it.GUID == "" {
			continue
		}
		q.Keys[it.GUID] = it.GUID
		q.Prefixes[IdentityPrefix(it.GUID)] = it.GUID
	}
	return q
}

// IdentifyItems gives each item of a fetch its key in the source (Item.GUID) by the rule
// above; known are the source's items and tombstones found for NewIdentityQuery. Of items
// that come out with one key, the first is kept. items is not changed.
func IdentifyItems(items []Item, known []KnownItem) []Item {
	links := map[string]string{} // the first link of each GUID
	split := map[string]bool{}   // GUIDs given to different links within this fetch
	for _, it := range items {
		if it.Link == "" {
			continue
		}
		if l, ok := links[it.GUID]; !ok {
			links[it.GUID] = it.Link
		} else if l != it.Link {
			split[it.GUID] = true
		}
	}
	byGUID := map[string][]KnownItem{}
	for _, k := range known {
		byGUID[k.GUID] = append(byGUID[k.GUID], k)
	}
	out := make([]Item, 0, len(items))
	seen := map[string]bool{}
	for _, it := range items {
		if it.GUID != "" {
			it.GUID = identify(it, byGUID[it.GUID], split[it.GUID])
		}
		if seen[it.GUID] {
			continue
		}
		seen[it.GUID] = true
		out = append(out, it)
	}
	return out
}

// identify is the key of one item of GUID it.GUID, given the known items of that GUID; split
// says the fetch gives the GUID to other links too.
func identify(it Item, known []KnownItem, split bool) string {
	own := IdentityKey(it.GUID, it.Link)
	var live bool
	var pruned *time.Time // the latest pruning of this GUID's keys
	for _, k := range known {
		if k.PrunedAt != nil {
			if k.Key == own {
				return k.Key // this very post, pruned: it stays out
			}
			if pruned == nil || k.PrunedAt.After(*pruned) {
				pruned = k.PrunedAt
			}
			continue
		}
		live = true
		if k.Link == it.Link {
			return k.Key // the same post, perhaps retitled
		}
	}
	if !split {
		for _, k := range known {
			if k.PrunedAt != nil {
				continue
			}
			if it.Title != "" && k.Title == it.Title {
				return k.Key // the same post, moved to another link
			}
			if it.PublishedAt != nil && k.Published != nil && it.PublishedAt.Equal(*k.Published) {
				// The same post, retitled and moved (a blog that rewrites the permalink
				// when a headline is edited): a feed that reuses a GUID for new posts
				// gives them new dates.
				return k.Key
			}
		}
	}
	switch {
	case split || live:
		// Another post of this GUID is in the fetch, or stored with another link and
		// another title: this is a post of its own.
		return own
	case pruned != nil && it.PublishedAt != nil && it.PublishedAt.After(*pruned):
		// Only pruned posts had this GUID, and this one was published after they were
		// pruned: it cannot be one of them.
		return own
	}
	return it.GUID
}
