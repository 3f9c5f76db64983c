package app

import (
	"strings"
	"time"
)

// publishedMark stands, in a stored score reasoning, for "published" and the item's publication
// date ("published 2 Nov 2026", as the embedded enricher writes it for an item older than a
// week): the row holds the date already (issue 26, item 4: 25 bytes of most rows).
const publishedMark = "\x1d"

// publishedPhrase is what publishedMark stands for, from the item's publication time.
func publishedPhrase(published time.Time) string {
	return "published " + published.UTC().Format("2 Jan 2006")
}

// StoredReasoning is what a store keeps of an item's score reasoning: the phrase of its
// publication date (in UTC, as the row keeps it) replaced by a mark. ReasoningOf reads it back.
func StoredReasoning(reasoning string, published *time.Time) string {
	if published == nil || !strings.Contains(reasoning, "published ") || strings.Contains(reasoning, publishedMark) {
		return reasoning
	}
	return strings.ReplaceAll(reasoning, publishedPhrase(*published), publishedMark)
}

// ReasoningOf is an item's score reasoning from what a store keeps (StoredReasoning) and its
// publication time.
func ReasoningOf(stored string, published *time.Time) string {
	if !strings.Contains(stored, publishedMark) {
		return stored
	}
	if published == nil {
		return strings.ReplaceAll(stored, publishedMark, "published")
	}
	return strings.ReplaceAll(stored, publishedMark, publishedPhrase(*published))
}
