package enrich

import (
	"strings"
	"testing"
)

func TestStatsAverageLength(t *testing.T) {
	s := NewStats(1000)
	if s.avgLen() != 400 {
		t.Fatalf("empty statistics: %v", s.avgLen())
	}
	for range 30 {
		s.Observe(strings.Repeat("word ", 100))
		s.Observe(strings.Repeat("word ", 300))
	}
	if got := s.avgLen(); got < 199 || got > 201 {
		t.Fatalf("average length %v, want 200", got)
	}
}
