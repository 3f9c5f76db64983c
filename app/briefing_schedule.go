package app

import (
	"context"
	"net/mail"
	"strings"
	"time"
	"unicode"
)

// Briefing frequencies.
const (
	Daily  = "DAILY"
	Weekly = "WEEKLY"
)

// Briefing statuses.
const (
	BriefingActive     = "ACTIVE"
	BriefingPaused     = "PAUSED"
	BriefingQueued     = "QUEUED"
	BriefingProcessing = "PROCESSING"
	BriefingError      = "ERROR"
)

// Schedule says when a briefing runs: every day, or one day a week, at a local time of day in
// an IANA time zone.
type Schedule struct {
	Frequency string       // Daily or Weekly
	Weekday   time.Weekday // for Weekly
	Hour, Min int          // local time of day
	Location  *time.Location
}

// ParseSchedule checks and builds a schedule from its parts ("07:00", "Europe/Brussels").
func ParseSchedule(frequency string, weekday int, clock, zone string) (Schedule, error) {
	s := Schedule{Frequency: strings.ToUpper(strings.TrimSpace(frequency)), Weekday: time.Weekday(weekday)}
	if s.Frequency == "" {
		s.Frequency = Daily
	}
	if s.Frequency != Daily && s.Frequency != Weekly {
		return s, Errorf(EINVALID, "Frequency must be DAILY or WEEKLY.")
	}
	if s.Frequency == Weekly && (weekday < 0 || weekday > 6) {
		return s, Errorf(EINVALID, "The day of the week must be 0 (Sunday) to 6 (Saturday).")
	}
	t, err := time.Parse("15:04", strings.TrimSpace(clock))
	if err != nil {
		return s, Errorf(EINVALID, "The time of day must be HH:MM (24-hour), such as 07:00.")
	}
	s.Hour, s.Min = t.Hour(), t.Minute()
	if zone == "" {
		zone = "UTC"
	}
	if s.Location, err = LoadZone(zone); err != nil {
		return s, err
	}
	return s, nil
}

// at is the instant of the schedule's time of day on the local date y-m-d. In a DST gap (the
// local time does not exist) it is the first instant after the gap; in an overlap (the local
// time happens twice) it is the first of the two.
func (s Schedule) at(y int, m time.Month, d int) time.Time {
	loc := s.Location
	if loc == nil {
		loc = time.UTC
	}
	t := time.Date(y, m, d, s.Hour, s.Min, 0, 0, loc)
	if t.Hour() != s.Hour || t.Minute() != s.Min {
		// A gap: Go normalized the wall time forward by the gap; the schedule runs at the end of the gap.
		// Find the first instant whose local wall time is at or after the scheduled one.
		lo := time.Date(y, m, d, 0, 0, 0, 0, loc)
		for probe := lo; probe.Before(t.Add(3 * time.Hour)); probe = probe.Add(15 * time.Minute) {
			if probe.Day() == d && (probe.Hour() > s.Hour || probe.Hour() == s.Hour && probe.Minute() >= s.Min) {
				return probe
			}
		}
		return t
	}
	// An overlap: if the clocks went back (by an hour, or half an hour at Lord Howe) shortly
	// before t, the same wall time happened that much earlier; the first occurrence wins.
	if start, _ := t.ZoneBounds(); !start.IsZero() {
		_, prev := start.Add(-time.Nanosecond).Zone()
		_, cur := t.Zone()
		if earlier := t.Add(-time.Duration(prev-cur) * time.Second); prev > cur && earlier.Hour() == s.Hour && earlier.Minute() == s.Min && earlier.Day() == d {
			return earlier
		}
	}
	return t
}

// Occurrence returns the scheduled run of the period that contains now: today's (or this
// week's) scheduled instant in the schedule's zone, which may be after now.
func (s Schedule) Occurrence(now time.Time) time.Time {
	local := now.In(s.Location)
	y, m, d := local.Date()
	if s.Frequency == Weekly {
		// The most recent scheduled weekday, today included.
		back := (int(local.Weekday()) - int(s.Weekday) + 7) % 7
		day := time.Date(y, m, d-back, 12, 0, 0, 0, s.Location)
		y, m, d = day.Date()
	}
	return s.at(y, m, d)
}

// Due reports whether a briefing last run at lastRun (nil: never) should run at now, and the
// scheduled instant of the run that is due. A run is due when this period's scheduled instant
// has passed and no run happened since it — so an app that was asleep at 07:00 runs once when it
// wakes that day, and never twice for one period.
func (s Schedule) Due(now time.Time, lastRun *time.Time) (time.Time, bool) {
	occ := s.Occurrence(now)
	if now.Before(occ) {
		return occ, false
	}
	return occ, lastRun == nil || lastRun.Before(occ)
}

// Next returns the first scheduled instant strictly after now.
func (s Schedule) Next(now time.Time) time.Time {
	occ := s.Occurrence(now)
	if occ.After(now) {
		return occ
	}
	local := now.In(s.Location)
	y, m, d := local.Date()
	step := 1
	if s.Frequency == Weekly {
		step = 7
		back := (int(local.Weekday()) - int(s.Weekday) + 7) % 7
		d -= back
	}
	next := time.Date(y, m, d+step, 12, 0, 0, 0, s.Location)
	ny, nm, nd := next.Date()
	return s.at(ny, nm, nd)
}

// Period is what a run covers: from the previous run (or, on the first run, one period back:
// 24 hours or 7 days) to the run's time.
func (s Schedule) Period(runAt time.Time, lastRun *time.Time) (from, to time.Time) {
	if lastRun != nil {
		return *lastRun, runAt
	}
	if s.Frequency == Weekly {
		return runAt.Add(-7 * 24 * time.Hour), runAt
	}
	return runAt.Add(-24 * time.Hour), runAt
}

// LoadZone loads the time zone of an IANA name. Go also loads "Local", the zone of the machine
// the server runs on, which would make a briefing or a reader's times follow the server's zone,
// whatever it is: it is refused like any unknown name.
func LoadZone(zone string) (*time.Location, error) {
	loc, err := time.LoadLocation(zone)
	if err != nil || zone == "Local" {
		return nil, Errorf(EINVALID, "Unknown time zone %q: use an IANA name such as Europe/Brussels.", zone)
	}
	return loc, nil
}

// Location is the time zone of that name, or UTC when the name is unknown (a zone stored
// before the tz database dropped it, say): the one fallback for showing times in a zone.
func Location(zone string) *time.Location {
	loc, err := LoadZone(zone)
	if err != nil {
		return time.UTC
	}
	return loc
}

// Briefing is a scheduled report of the best items: daily or weekly, at a local time.
type Briefing struct {
	ID        int64   `json:"id"`
	UserID    int64   `json:"-"`
	Name      string  `json:"name"`
	Focus     string  `json:"focus"`
	SourceIDs []int64 `json:"sourceIds"`
	// FolderID limits the briefing to the sources of one folder (nil: SourceIDs, or every source).
	FolderID *int64 `json:"folderId"`
	// FolderName is the folder's name (read with the briefing; "" when none).
	FolderName     string     `json:"folderName,omitempty"`
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
	MarkRead       bool       `json:"markRead"`       // opening a report marks its stories read
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
	switch {
	case len(b.Name) > 200:
		return Errorf(EINVALID, "The name is too long: at most 200 characters.")
	case len(b.Focus) > 4000:
		return Errorf(EINVALID, "The focus is too long: at most 4,000 characters.")
	case len(b.Topic) > 60:
		return Errorf(EINVALID, "The topic is too long: at most 60 characters.")
	}
	if b.FolderID != nil && *b.FolderID <= 0 {
		b.FolderID = nil
	}
	if b.FolderID != nil && len(b.SourceIDs) > 0 {
		return Errorf(EINVALID, "A briefing covers a folder or chosen sources, not both: choose one.")
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
	if len(b.Recipients) > MaxRecipients {
		return Errorf(EINVALID, "A briefing can email at most %d recipients; this one has %d.", MaxRecipients, len(b.Recipients))
	}
	for _, r := range b.Recipients {
		if strings.ContainsFunc(r, func(c rune) bool { return unicode.IsControl(c) || unicode.IsSpace(c) }) {
			return Errorf(EINVALID, "%q is not an email address: it holds a space, a line break or another control character.", r)
		}
		if a, err := mail.ParseAddress(r); len(r) < 3 || len(r) > 254 || !containsAt(r) || err != nil || a.Address != r {
			return Errorf(EINVALID, "%q is not an email address.", r)
		}
	}
	if b.EmailEnabled && len(b.Recipients) == 0 {
		return Errorf(EINVALID, "Email delivery needs at least one recipient.")
	}
	return nil
}

// MaxRecipients is how many addresses one briefing emails at most.
const MaxRecipients = 20

func containsAt(s string) bool {
	for i := 1; i < len(s)-1; i++ {
		if s[i] == '@' {
			return true
		}
	}
	return false
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
	// ReportsWithItems are a briefing's latest reports, newest first, each with its items.
	ReportsWithItems(ctx context.Context, userID, briefingID int64, limit int) ([]*Report, error)
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
