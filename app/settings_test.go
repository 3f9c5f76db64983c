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
