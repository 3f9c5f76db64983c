package app

import (
	"context"
	"time"
)

// Briefing is a scheduled report of the best items: daily or weekly, at a local time.
type Briefing struct {
	ID             int64      `json:"id"`
	UserID         int64      `json:"-"`
	Name           string     `json:"name"`
	Focus          string     `json:"focus"`
	SourceIDs      []int64    `json:"sourceIds"`
	Topic          string     `json:"topic"` // only items with this topic ("" any)
	Frequency      string     `json:"frequency"`
	DayOfWeek      int        `json:"dayOfWeek"`
	Time           string     `json:"time"`
	Timezone       string     `json:"timezone"`
	ItemLimit      int        `json:"itemLimit"`
	MinScore       int        `json:"minScore"`
	EmailEnabled   bool       `json:"emailEnabled"`
	Recipients     []string   `json:"recipients"`
	EmailWhenEmpty bool       `json:"emailWhenEmpty"` // email the "nothing new" report too
	Status         string     `json:"status"`
	LastExecutedAt *time.Time `json:"lastExecutedAt"`
	LastError      string     `json:"lastError"`
	CreatedAt      time.Time  `json:"createdAt"`
}

// Schedule returns the briefing's schedule (its fields are validated when stored).
func (b *Briefing) Schedule() (Schedule, error) {
	return ParseSchedule(b.Frequency, b.DayOfWeek, b.Time, b.Timezone)
}

// Validate checks a briefing and fills defaults.
func (b *Briefing) Validate() error {
	if b.Name == "" {
		return Errorf(EINVALID, "A briefing needs a name.")
	}
	if len(b.Name) > 200 || len(b.Focus) > 4000 || len(b.Topic) > 60 {
		return Errorf(EINVALID, "The name (200) or the focus (4000 characters) is too long.")
	}
	if b.ItemLimit == 0 {
		b.ItemLimit = 10
	}
	if b.ItemLimit < 1 || b.ItemLimit > 100 {
		return Errorf(EINVALID, "A briefing holds 1 to 100 items.")
	}
	if b.MinScore < 0 || b.MinScore > 100 {
		return Errorf(EINVALID, "The minimum score is between 0 and 100.")
	}
	if b.Time == "" {
		b.Time = "07:00"
	}
	if b.Timezone == "" {
		b.Timezone = "UTC"
	}
	s, err := b.Schedule()
	if err != nil {
		return err
	}
	b.Frequency = s.Frequency
	for _, r := range b.Recipients {
		if len(r) < 3 || len(r) > 254 || !containsAt(r) {
			return Errorf(EINVALID, "%q is not an email address.", r)
		}
	}
	if b.EmailEnabled && len(b.Recipients) == 0 {
		return Errorf(EINVALID, "Email delivery needs at least one recipient.")
	}
	return nil
}

func containsAt(s string) bool {
	for i := 1; i < len(s)-1; i++ {
		if s[i] == '@' {
			return true
		}
	}
	return false
}

// Report is what a briefing run produced. It never changes afterwards.
type Report struct {
	ID          int64        `json:"id"`
	BriefingID  int64        `json:"briefingId"`
	UserID      int64        `json:"-"`
	GeneratedAt time.Time    `json:"generatedAt"`
	PeriodStart time.Time    `json:"periodStart"`
	PeriodEnd   time.Time    `json:"periodEnd"`
	Overview    string       `json:"overview"`
	Items       []ReportItem `json:"items"`
}

// ReportItem is one ranked entry of a report, with the coverage grouped under it.
type ReportItem struct {
	Rank           int        `json:"rank"`
	ItemID         *int64     `json:"itemId"`
	SourceName     string     `json:"source"`
	Title          string     `json:"title"`
	Link           string     `json:"link"`
	Summary        string     `json:"summary"`
	Score          int        `json:"score"`
	ScoreReasoning string     `json:"scoreReasoning"`
	AlsoCoveredBy  []Coverage `json:"alsoCoveredBy"`
}

// Coverage is another source's item about the same story.
type Coverage struct {
	Title  string `json:"title"`
	Link   string `json:"link"`
	Source string `json:"source"`
}

// BriefingStore keeps briefings and their reports.
type BriefingStore interface {
	SaveBriefing(ctx context.Context, b *Briefing) error
	Briefing(ctx context.Context, userID, id int64) (*Briefing, error)
	Briefings(ctx context.Context, userID int64) ([]*Briefing, error)
	DeleteBriefing(ctx context.Context, userID, id int64) error
	SetBriefingPaused(ctx context.Context, userID, id int64, paused bool) error
	Reports(ctx context.Context, userID, briefingID int64, limit int) ([]*Report, error)
	Report(ctx context.Context, userID, id int64) (*Report, error)
	// BriefingOwner is the user a briefing belongs to (for its feed, reached by token).
	BriefingOwner(ctx context.Context, id int64) (int64, error)
}

// NextRunAt is the briefing's next scheduled run after now (nil when paused or invalid).
func (b *Briefing) NextRunAt(now time.Time) *time.Time {
	s, err := b.Schedule()
	if err != nil || b.Status == BriefingPaused {
		return nil
	}
	if at, due := s.Due(now, b.Since()); due {
		return &at // due now: the scheduler picks it up within a minute
	}
	next := s.Next(now)
	return &next
}

// Since is when the briefing last ran, or when it was created: a new briefing does not run for
// a period that began before it existed.
func (b *Briefing) Since() *time.Time {
	if b.LastExecutedAt != nil || b.CreatedAt.IsZero() {
		return b.LastExecutedAt
	}
	return &b.CreatedAt
}

// Delivery statuses.
const (
	DeliveryPending = "PENDING"
	DeliverySending = "SENDING"
	DeliverySent    = "SENT"
	DeliveryFailed  = "FAILED"
	DeliverySkipped = "SKIPPED"
)

// Delivery is one email of a report to one recipient.
type Delivery struct {
	ID        int64      `json:"id"`
	ReportID  int64      `json:"reportId"`
	Recipient string     `json:"recipient"`
	Status    string     `json:"status"`
	Attempts  int        `json:"attempts"`
	LastError string     `json:"lastError"`
	SentAt    *time.Time `json:"sentAt"`
}
