package feeds

import (
	"testing"
	"time"
)

// dateForms are the date forms feeds write (from feedparser's date tests, the list
// and real feeds), each with the instant it means.
var dateForms = []struct{ in, want string }{
	// RFC 822 / 1123 and their variations.
	{"Thu, 01 Jan 2004 19:48:21 GMT", "2004-01-01T19:48:21Z"},
	{"Thu, 01 Jan 2004 19:48:21 +0000", "2004-01-01T19:48:21Z"},
	{"Thu, 01 Jan 04 19:48:21 GMT", "2004-01-01T19:48:21Z"},
	{"01 Jan 2004 19:48:21 GMT", "2004-01-01T19:48:21Z"},
	{"Thu, 1 Jan 2004 19:48 GMT", "2004-01-01T19:48:00Z"},
	{"Thu, 01 Jan 2004 19:48:21 -0500", "2004-01-02T00:48:21Z"},
	{"Thu, 01 Jan 2004 19:48:21 EST", "2004-01-02T00:48:21Z"},
	{"Thu, 01 Jan 2004 19:48:21 EDT", "2004-01-01T23:48:21Z"},
	{"Thu, 01 Jan 2004 19:48:21 PST", "2004-01-02T03:48:21Z"},
	{"Thu, 01 Jan 2004 19:48:21 CST", "2004-01-02T01:48:21Z"},
	{"Thu, 01 Jan 2004 19:48:21 MDT", "2004-01-02T01:48:21Z"},
	{"Thu, 01 Jan 2004 19:48:21 UT", "2004-01-01T19:48:21Z"},
	{"Thu, 01 Jan 2004 19:48:21 Z", "2004-01-01T19:48:21Z"},
	{"Thu, 01 Jan 2004 19:48:21 +01:00", "2004-01-01T18:48:21Z"},
	{"Mon, 26 January 2004 16:31:00 PT", "2004-01-27T00:31:00Z"},
	{"Mo, 15 Jan 2024 10:00:00 +0100", "2024-01-15T09:00:00Z"},
	{"Monday, 15 January 2024 10:00:00 +0100", "2024-01-15T09:00:00Z"},
	{"Thu, 01 Sept 2022 10:00:00 GMT", "2022-09-01T10:00:00Z"},
	{"Sun, 31 Mar 2024 10:00:00 MET", "2024-03-31T09:00:00Z"},
	{"Sun, 31 Mar 2024 10:00:00 MEST", "2024-03-31T08:00:00Z"},
	{"Sun, 31 Mar 2024 10:00:00 CEST", "2024-03-31T08:00:00Z"},
	{"Sun, 31 Mar 2024 10:00:00 BST", "2024-03-31T09:00:00Z"},
	{"Sun, 31 Mar 2024 10:00:00 JST", "2024-03-31T01:00:00Z"},
	{"Sun, 31 Mar 2024 10:00:00 AEST", "2024-03-31T00:00:00Z"},
	{"Sun, 31 Mar 2024 10:00:00 Etc/GMT", "2024-03-31T10:00:00Z"},
	{"Sun, 31 Mar 2024 10:00:00 Etc/GMT+5", "2024-03-31T15:00:00Z"},
	{"Sun, 31 Mar 2024 10:00:00 GMT-01:01", "2024-03-31T11:01:00Z"},
	{"Sun, 31 Mar 2024 10:00:00 GMT+0200", "2024-03-31T08:00:00Z"},
	{"31 Mar 2024", "2024-03-31T00:00:00Z"},
	// ISO 8601 / RFC 3339 / W3C-DTF.
	{"2003-12-31T10:14:55Z", "2003-12-31T10:14:55Z"},
	{"2003-12-31T10:14:55-08:00", "2003-12-31T18:14:55Z"},
	{"2003-12-31T10:14:55.123+01:00", "2003-12-31T09:14:55.123Z"},
	{"2003-12-31T10:14:55+0100", "2003-12-31T09:14:55Z"},
	{"2003-12-31T10:14Z", "2003-12-31T10:14:00Z"},
	{"2003-12-31T10:14+01:00", "2003-12-31T09:14:00Z"},
	{"2018-01-06T08:00", "2018-01-06T08:00:00Z"},
	{"2018-01-06T08:00:30", "2018-01-06T08:00:30Z"},
	{"2018-01-06 08:00:30", "2018-01-06T08:00:30Z"},
	{"2018-01-06 08:00:30 +0200", "2018-01-06T06:00:30Z"},
	{"2018-01-06 08:00:30+02:00", "2018-01-06T06:00:30Z"},
	{"2018-01-06 08:00", "2018-01-06T08:00:00Z"},
	{"2003-12-31", "2003-12-31T00:00:00Z"},
	{"2003-12", "2003-12-01T00:00:00Z"},
	{"2003-12-31Z", "2003-12-31T00:00:00Z"},
	{"20031231T101455Z", "2003-12-31T10:14:55Z"},
	{"20031231", "2003-12-31T00:00:00Z"},
	{"2003-365", "2003-12-31T00:00:00Z"},
	// Slashed, dotted, asctime and others.
	{"2020/1/10 14:33:00", "2020-01-10T14:33:00Z"},
	{"2020/01/10", "2020-01-10T00:00:00Z"},
	{"2020.01.10 14:33:00", "2020-01-10T14:33:00Z"},
	{"10.01.2020 14:33", "2020-01-10T14:33:00Z"},
	{"Sun Jan  4 16:29:06 2004", "2004-01-04T16:29:06Z"},
	{"Sun Jan 4 16:29:06 -0800 2004", "2004-01-05T00:29:06Z"},
	{"January 4, 2004", "2004-01-04T00:00:00Z"},
	{"Jan 4, 2004 4:29 PM", "2004-01-04T16:29:00Z"},
	{"  Thu,  01 Jan 2004   19:48:21 GMT  ", "2004-01-01T19:48:21Z"},
}

// TestDateForms: at least 50 of the valid forms are read, and none wrongly.
func TestDateForms(t *testing.T) {
	read := 0
	for _, c := range dateForms {
		want, err := time.Parse(time.RFC3339Nano, c.want)
		if err != nil {
			t.Fatalf("bad expectation %q", c.want)
		}
		got, ok := parseDate(c.in)
		switch {
		case !ok:
			t.Errorf("%q: not read", c.in)
		case !got.Equal(want):
			t.Errorf("%q: read as %s, want %s (a wrong date is worse than none)", c.in, got.UTC().Format(time.RFC3339), c.want)
		default:
			read++
		}
	}
	t.Logf("%d of %d date forms read", read, len(dateForms))
}

// TestDatesNotGuessed: what is not a date stays unread, so that the item keeps the time it
// was first seen instead of a made-up one.
func TestDatesNotGuessed(t *testing.T) {
	for _, s := range []string{"", "not a date", "yesterday", "Mon, 32 Foo 99999 25:61:61 GMT", "2026-13-45T99:99:99+25:00",
		"0000-00-00", "Thu, 01 Jan 2004 19:48:21 XYZ", "12/11/10", "soon", "Thu, 01 Jan 2004 19:48:21 Mars/Olympus"} {
		if got, ok := parseDate(s); ok {
			t.Errorf("%q read as %v", s, got)
		}
	}
}

func BenchmarkParseDate(b *testing.B) {
	for b.Loop() {
		for _, c := range dateForms {
			parseDate(c.in)
		}
	}
}
