package app

import (
	"context"
	"regexp"
	"strings"
	"time"
	"unicode"
)

// Filter fields, match kinds and actions.
const (
	FilterHide  = "hide"
	FilterRead  = "read"
	FilterStar  = "star"
	FilterScore = "score"
)

// Filter is a moderation rule, evaluated by the processing worker before enrichment
// (and, for tags and topics, after it).
type Filter struct {
	ID         int64     `json:"id"`
	UserID     int64     `json:"-"`
	SourceID   *int64    `json:"sourceId"`
	Name       string    `json:"name"`
	Field      string    `json:"field"` // any, title, content, author, link, tags, topics
	Match      string    `json:"match"` // keywords or regex
	Pattern    string    `json:"pattern"`
	Action     string    `json:"action"` // hide, read, star, score
	ScoreDelta int       `json:"scoreDelta"`
	Enabled    bool      `json:"enabled"`
	CreatedAt  time.Time `json:"createdAt"`

	re       *regexp.Regexp
	keywords []string
}

// Validate checks a filter and prepares it for matching.
func (f *Filter) Validate() error {
	switch f.Field {
	case "any", "title", "content", "author", "link", "tags", "topics":
	case "":
		f.Field = "any"
	default:
		return Errorf(EINVALID, "A filter matches on any, title, content, author, link, tags or topics; not %q.", f.Field)
	}
	switch f.Action {
	case FilterHide, FilterRead, FilterStar:
	case FilterScore:
		if f.ScoreDelta == 0 || f.ScoreDelta < -100 || f.ScoreDelta > 100 {
			return Errorf(EINVALID, "A score filter needs an adjustment between -100 and 100 (not 0).")
		}
	default:
		return Errorf(EINVALID, "A filter's action is hide, read, star or score; not %q.", f.Action)
	}
	f.Pattern = strings.TrimSpace(f.Pattern)
	if f.Pattern == "" {
		return Errorf(EINVALID, "A filter needs keywords or a regular expression.")
	}
	if len(f.Pattern) > 1000 {
		return Errorf(EINVALID, "A filter's pattern can be at most 1000 characters.")
	}
	switch f.Match {
	case "keywords", "":
		f.Match = "keywords"
		f.keywords = nil
		for _, k := range strings.Split(f.Pattern, ",") {
			if k = strings.ToLower(strings.TrimSpace(k)); k != "" {
				f.keywords = append(f.keywords, k)
			}
		}
		if len(f.keywords) == 0 {
			return Errorf(EINVALID, "A filter needs at least one keyword.")
		}
	case "regex":
		re, err := regexp.Compile("(?i)" + f.Pattern)
		if err != nil {
			return Errorf(EINVALID, "The regular expression is not valid: %v.", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		}
		f.re = re
	default:
		return Errorf(EINVALID, "A filter matches by keywords or regex; not %q.", f.Match)
	}
	return nil
}

// Matches reports whether the filter matches the item (its text in it.Text).
func (f *Filter) Matches(it *Item) bool {
	if !f.Enabled || (f.SourceID != nil && *f.SourceID != it.SourceID) {
		return false
	}
	if f.re == nil && f.keywords == nil {
		if f.Validate() != nil {
			return false
		}
	}
	var fields []string
	switch f.Field {
	case "title":
		fields = []string{it.Title}
	case "content":
		fields = []string{it.Text}
	case "author":
		fields = []string{it.Author}
	case "link":
		fields = []string{it.Link}
	case "tags":
		fields = it.Tags
	case "topics":
		fields = it.Topics
		if len(fields) == 0 {
			fields = it.UsualTopics
		}
	default:
		fields = []string{it.Title, it.Text, it.Author, it.Link, strings.Join(it.Tags, " "), strings.Join(it.Topics, " ")}
	}
	for _, s := range fields {
		if f.re != nil {
			if f.re.MatchString(s) {
				return true
			}
			continue
		}
		ls := strings.ToLower(s)
		for _, k := range f.keywords {
			if containsWord(ls, k) {
				return true
			}
		}
	}
	return false
}

// containsWord reports whether s contains word k on word boundaries.
func containsWord(s, k string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], k)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(k)
		before := start == 0 || !isWordByte(s, start-1, true)
		after := end == len(s) || !isWordByte(s, end, false)
		if before && after {
			return true
		}
		i = start + 1
	}
}

func isWordByte(s string, i int, backwards bool) bool {
	var r rune
	if backwards {
		for k := i; k >= 0; k-- {
			if s[k] < 0x80 || s[k] >= 0xC0 {
				r = []rune(s[k : i+1])[0]
				break
			}
		}
	} else {
		r = []rune(s[i:min(len(s), i+4)])[0]
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// FilterEffect is what the matching filters do to an item.
type FilterEffect struct {
	Hide, Read, Star bool
	ScoreDelta       int
	Matched          []string // names (or patterns) of the filters that matched
}

// Score is an enricher's score and reason with the filters' effect: the score moved by
// ScoreDelta within 0–100, the reason naming the filters that matched.
func (e FilterEffect) Score(score int, reasoning string) (int, string) {
	if len(e.Matched) > 0 {
		reasoning = strings.TrimSpace(reasoning + " · filter: " + strings.Join(e.Matched, ", "))
	}
	return max(0, min(100, score+e.ScoreDelta)), reasoning
}

// ApplyFilters evaluates every filter against the item.
func ApplyFilters(filters []*Filter, it *Item) FilterEffect {
	var e FilterEffect
	for _, f := range filters {
		if !f.Matches(it) {
			continue
		}
		name := f.Name
		if name == "" {
			name = f.Pattern
		}
		e.Matched = append(e.Matched, name)
		switch f.Action {
		case FilterHide:
			e.Hide = true
		case FilterRead:
			e.Read = true
		case FilterStar:
			e.Star = true
		case FilterScore:
			e.ScoreDelta += f.ScoreDelta
		}
	}
	return e
}

// FilterStore keeps filter rules.
type FilterStore interface {
	Filters(ctx context.Context, userID int64) ([]*Filter, error)
	CreateFilter(ctx context.Context, f *Filter) error
	DeleteFilter(ctx context.Context, userID, id int64) error
}
