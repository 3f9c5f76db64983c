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
