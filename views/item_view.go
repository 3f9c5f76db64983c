package views

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/morningdeck/morningdeck/app"
)

// ItemView is an item made for display.
type ItemView struct {
	ID         int64
	Title      string
	Link       string
	Author     string
	SourceID   int64
	SourceName string
	Published  TimeView
	Excerpt    string // plain text, safe to render escaped
	Truncated  bool   // the excerpt is shorter than the article
	Content    string // CleanContent: sanitized at ingestion, the only HTML rendered raw

	Summary string
	Tags    []string
	Topics  []string
	// UsualTopics: the source's usual topics, for an item that matched none of the user's.
	UsualTopics []string
	Score       *int
	Reason      string
	Status      app.ItemStatus
	LastError   string
	Attempts    int
	Read        bool
	Starred     bool
	Hidden      bool
	Snippet     []SnippetPart // search matches, when the list is a search
	ListQuery   string        // the list it is shown in, with its place there (see itemnav.go)

	Media       []MediaView // audio and video to play, images to show (enclosures, Media RSS)
	Thumbnail   string      // the item's picture, "" if none
	DateMissing bool        // the feed gave no date we could read: Published is when it was first seen
	DateWritten string      // the date as the feed wrote it, when we could not read it
	// ArticleError: why the linked page could not be read when the item was enriched, so the
	// summary and score come from the feed's text ("" otherwise).
	ArticleError string
	// FullText: Content is the linked page's article, read on the reader's demand.
	FullText bool
	// ShowArticle opens the article in a card (after Full text); FullTextError says why the
	// page could not be read.
	ShowArticle   bool
	FullTextError string
	// SaveTo names where "Save" sends the item ("Wallabag and your webhook"); "": no button.
	SaveTo string
	// Saved says what the last Save did, shown on the card it answered with.
	Saved      string
	SaveFailed bool
	// A newsletter's (a mail source's item): the address it came from, and its List-Unsubscribe
	// link (https or mailto), offered on its page.
	Sender      string
	Unsubscribe string
}

// MediaView is one enclosure of an item: Kind is audio, video or image ("" for another file,
// offered as a download).
type MediaView struct {
	URL, Type, Kind, Size string
}

// mediaViews turns enclosures into what the item page plays or links; only http(s) addresses.
func mediaViews(encs []app.Enclosure) []MediaView {
	var out []MediaView
	for _, e := range encs {
		u := app.SafeLink(e.URL)
		if u == "" {
			continue
		}
		kind := e.Medium
		if kind == "" {
			kind, _, _ = strings.Cut(e.Type, "/")
		}
		switch kind {
		case "audio", "video", "image":
		default:
			kind = ""
		}
		size := ""
		if e.Length > 0 {
			size = byteSize(e.Length)
		}
		out = append(out, MediaView{URL: u, Type: e.Type, Kind: kind, Size: size})
	}
	return out
}

// byteSize writes a file size for a person: "48 MB".
func byteSize(n int64) string {
	switch {
	case n >= 1<<30:
		return strconv.FormatFloat(float64(n)/(1<<30), 'f', 1, 64) + " GB"
	case n >= 1<<20:
		return strconv.FormatInt(n>>20, 10) + " MB"
	case n >= 1<<10:
		return strconv.FormatInt(n>>10, 10) + " KB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// SnippetPart is a piece of a search snippet; Match pieces are highlighted.
type SnippetPart struct {
	Text  string
	Match bool
}

// Href is the item's page in the app.
func (v ItemView) Href() string { return "/items/" + strconv.FormatInt(v.ID, 10) }

// Action is the URL of a form post on the item.
func (v ItemView) Action(name string) string { return v.Href() + "/" + name }

// ScoreClass is the class of the score's badge (app.ScoreClass; score-none before scoring).
func (v ItemView) ScoreClass() string {
	if v.Score == nil {
		return "score-none"
	}
	return app.ScoreClass(*v.Score)
}

// ScoreText is the score as shown.
func (v ItemView) ScoreText() string {
	if v.Score == nil {
		return "–"
	}
	return strconv.Itoa(*v.Score)
}

func snippetParts(s string) []SnippetPart {
	var out []SnippetPart
	for s != "" {
		i := strings.IndexByte(s, '\x01')
		if i < 0 {
			out = append(out, SnippetPart{Text: s})
			break
		}
		if i > 0 {
			out = append(out, SnippetPart{Text: s[:i]})
		}
		s = s[i+1:]
		j := strings.IndexByte(s, '\x02')
		if j < 0 {
			j = len(s)
		}
		out = append(out, SnippetPart{Text: s[:j], Match: true})
		s = s[min(j+1, len(s)):]
	}
	return out
}

// SourceHref is the page of the item's source.
func (v ItemView) SourceHref() string { return "/sources/" + strconv.FormatInt(v.SourceID, 10) }

// itemView is an item as a card or page shows it, with where "Save" sends it.
func (s *Server) itemView(r *http.Request, it *app.Item, sourceName string) ItemView {
	v := s.itemViewOf(it, sourceName)
	v.SaveTo = s.saveTo(r)
	return v
}

// saveTo names where the user's "Save" sends items ("Wallabag and your webhook"); "" when
// nowhere, and the button is not shown.
func (s *Server) saveTo(r *http.Request) string {
	if s.opts.Saving == nil || s.opts.Settings == nil {
		return ""
	}
	st, err := s.opts.Settings.Get(r.Context(), userID(r))
	if err != nil {
		return ""
	}
	return app.AndList(s.opts.Saving.Targets(st))
}

func (s *Server) itemViewOf(it *app.Item, sourceName string) ItemView {
	pub := it.PublishedAt
	if pub == nil {
		pub = &it.CreatedAt
	}
	title := strings.TrimSpace(it.Title)
	if title == "" {
		title = "(untitled)"
	}
	if it.SourceName != "" {
		sourceName = it.SourceName
	}
	ex, cut := excerpt(it.Text, 320)
	written, _ := it.Extra[app.ExtraDateUnread].(string)
	sender, _ := it.Extra[app.ExtraSender].(string)
	unsubscribe, _ := it.Extra[app.ExtraUnsubscribe].(string)
	if !strings.HasPrefix(unsubscribe, "mailto:") {
		unsubscribe = app.SafeLink(unsubscribe)
	}
	return ItemView{
		ID:          it.ID,
		Title:       title,
		Link:        app.SafeLink(it.Link),
		Sender:      sender,
		Unsubscribe: unsubscribe,
		Author:      it.Author,
		SourceID:    it.SourceID,
		SourceName:  sourceName,
		Published:   s.timeView(pub),
		Excerpt:     ex,
		Truncated:   cut,
		Content:     it.CleanContent,
		Summary:     it.Summary,
		Tags:        it.Tags,
		Topics:      it.Topics,
		UsualTopics: it.UsualTopics,
		Score:       it.Score,
		Reason:      it.ScoreReasoning,
		Status:      it.Status,
		LastError:   it.LastError,
		Attempts:    it.Attempts,
		Read:        it.ReadAt != nil,
		Starred:     it.Starred,
		Hidden:      it.Hidden,
		Snippet:     snippetParts(it.Snippet),

		Media:       mediaViews(it.Enclosures()),
		Thumbnail:   app.SafeLink(it.Thumbnail()),
		DateMissing: it.DateMissing(),
		DateWritten: written,

		ArticleError: it.ArticleError(),
		FullText:     it.FullText(),
	}
}

// excerpt cuts plain text to at most n runes at a word boundary (app.Shorten); truncated
// tells whether it was cut.
func excerpt(text string, n int) (string, bool) {
	s := app.Shorten(text, n)
	return s, s != text
}

// mediaLabel names a media file's link: "Download the audio (48 MB, audio/mpeg)".
func mediaLabel(m MediaView) string {
	what := "the file"
	switch m.Kind {
	case "audio":
		what = "the audio"
	case "video":
		what = "the video"
	case "image":
		what = "the picture"
	}
	var details []string
	if m.Size != "" {
		details = append(details, m.Size)
	}
	if m.Type != "" {
		details = append(details, m.Type)
	}
	if len(details) > 0 {
		return "Download " + what + " (" + strings.Join(details, ", ") + ")"
	}
	return "Download " + what
}

// dateMissingTitle explains an undated item's date on hover.
func dateMissingTitle(written string) string {
	if written != "" {
		return "The feed dated this item \"" + written + "\", which could not be read; it is dated by when Morning Deck first saw it."
	}
	return "The feed gave this item no date; it is dated by when Morning Deck first saw it."
}
