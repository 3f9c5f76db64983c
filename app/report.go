package app

import (
	"time"
)

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
	// ItemCount is the number of stories (set when reports are listed without their items).
	ItemCount int `json:"itemCount"`
	// Preview: written by "Run now"; it did not move the briefing's scheduled period.
	Preview bool `json:"preview"`
}

// Stories is the number of stories of the report, whether or not its items were read.
func (r *Report) Stories() int { return max(r.ItemCount, len(r.Items)) }

// LatestNonEmpty is the newest report of reports (newest first) that has stories, else the
// newest one, else nil: the report a reader is offered.
func LatestNonEmpty(reports []*Report) *Report {
	for _, r := range reports {
		if r.Stories() > 0 {
			return r
		}
	}
	if len(reports) > 0 {
		return reports[0]
	}
	return nil
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
	ItemID *int64 `json:"itemId,omitempty"` // the item in the app (nil in reports written before issue 13)
	Title  string `json:"title"`
	Link   string `json:"link"`
	Source string `json:"source"`
}
