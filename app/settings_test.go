package app_test

import (
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/app"
)

// TestSettingsSMTPHost: the SMTP server is a host name or an IP address, checked when saved (it
// used to fail only at the test email); a time zone Go loads but that is not an IANA name
// ("Local") is refused.
func TestSettingsSMTPHost(t *testing.T) {
	for _, h := range []string{"smtp.example.com", "mail", "192.0.2.1", "[2001:db8::1]", "2001:db8::1", "smtp_relay.lan", "smtp.exämple.de", " smtp.example.com ", ""} {
		u := app.SettingsUpdate{SMTPHost: &h}
		if err := u.Validate(); err != nil {
			t.Errorf("host %q: %v", h, err)
		}
	}
	for _, h := range []string{"bad host name!", "smtp..example.com", "smtp.example.com:587", "http://smtp.example.com", strings.Repeat("a", 64) + ".com"} {
		u := app.SettingsUpdate{SMTPHost: &h}
		if err := u.Validate(); app.ErrorCode(err) != app.EINVALID || !strings.Contains(app.ErrorMessage(err), "is not a host name or an IP address") {
			t.Errorf("host %q: %v; want it refused", h, err)
		}
	}
	zone := "Local"
	u := app.SettingsUpdate{Timezone: &zone}
	if err := u.Validate(); app.ErrorCode(err) != app.EINVALID {
		t.Errorf("time zone Local: %v", err)
	}
}

// TestAddToInterest: a word from an interest's vocabulary joins the interest's "(also: …)" list,
// on the line (or ;-part) that is the interest, and nothing else changes.
func TestAddToInterest(t *testing.T) {
	for _, tc := range []struct {
		interests, interest, word, want string
		ok                              bool
	}{
		{"security vulnerabilities\ncooking", "security vulnerabilities", "CVE", "security vulnerabilities (also: CVE)\ncooking", true},
		{"security vulnerabilities (also: CVE)\ncooking", "security vulnerabilities (also: CVE)", "exploit", "security vulnerabilities (also: CVE, exploit)\ncooking", true},
		{"cooking; web browsers", "web browsers", "HTML5", "cooking; web browsers (also: HTML5)", true},
		{"cooking", "knitting", "yarn", "cooking", false},
		{"cooking", "cooking", "a, b", "cooking", false},
		{"cooking", "cooking", "(x)", "cooking", false},
		{"cooking", "cooking", " ", "cooking", false},
	} {
		got, ok := app.AddToInterest(tc.interests, tc.interest, tc.word)
		if got != tc.want || ok != tc.ok {
			t.Errorf("AddToInterest(%q, %q, %q) = %q, %v; want %q, %v", tc.interests, tc.interest, tc.word, got, ok, tc.want, tc.ok)
		}
	}
	// A kind of the lexicon taken out goes to the interest's "(not: …)" list, beside "(also: …)".
	for _, tc := range []struct{ interests, interest, kind, want string }{
		{"social media\ncooking", "social media", "Facebook", "social media (not: Facebook)\ncooking"},
		{"social media (not: Facebook)", "social media (not: Facebook)", "LinkedIn", "social media (not: Facebook, LinkedIn)"},
		{"security vulnerabilities (also: CVE)", "security vulnerabilities (also: CVE)", "zero-day", "security vulnerabilities (also: CVE) (not: zero-day)"},
	} {
		if got, ok := app.RemoveKind(tc.interests, tc.interest, tc.kind); !ok || got != tc.want {
			t.Errorf("RemoveKind(%q, %q, %q) = %q, %v; want %q", tc.interests, tc.interest, tc.kind, got, ok, tc.want)
		}
	}
}
