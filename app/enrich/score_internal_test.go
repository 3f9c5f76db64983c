package enrich

import "testing"

// The reading model's points combine with an interest match in log-odds: liked strong matches
// keep their order below 100 instead of tying there, an uncertain match moves most, and no
// points change nothing.
func TestWithTaste(t *testing.T) {
	a, b := withTaste(92, 25), withTaste(85, 25)
	if !(a > b && a < 99.5 && b > 92) {
		t.Fatalf("liked matches at 92 and 85 became %.1f and %.1f", a, b)
	}
	if up, down := withTaste(60, 25)-60, 92-withTaste(92, -25); !(up > withTaste(92, 25)-92 && down > 20) {
		t.Fatalf("an uncertain match moved %.1f, a strong one taught against %.1f", up, down)
	}
	if withTaste(70, 0) != 70 || withTaste(70, 10) <= 70 || withTaste(70, -10) >= 70 {
		t.Fatal("the points' sign is not kept")
	}
}
