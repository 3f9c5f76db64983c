package feeds

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// parseDate reads a feed's date in any of the forms real feeds use: RFC 822/1123 with or
// without the weekday (in any language) or seconds, with a numeric offset or a named zone,
// full month names; ISO 8601 / RFC 3339 with or without seconds, fraction or zone; slashed
// dates; asctime; a year and month only. A date without a zone is read as UTC. It never
// guesses: a date it cannot read is reported as such (ok false), and the caller leaves the
// item undated, so that the pipeline keeps the time it first saw the item.
func parseDate(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 100 {
		return time.Time{}, false
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, true
	}
	// The usual RSS form, with a numeric offset or GMT, needs no normalizing.
	if t, err := time.Parse(time.RFC1123Z, s); err == nil {
		return t, true
	}
	if strings.HasSuffix(s, " GMT") {
		if t, err := time.Parse(time.RFC1123, s); err == nil {
			return t.UTC(), true
		}
	}
	n := normalizeDate(s)
	for _, layout := range dateLayouts {
		if t, err := time.Parse(layout, n); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

var (
	// weekdayPrefix is a leading weekday in any language and spelling ("Mon,", "Mo,", "Monday,", "Lun.").
	weekdayPrefix = regexp.MustCompile(`^\p{L}{2,12}\.?,?\s+`)
	// gmtOffset is "GMT-01:01", "UTC+5", "GMT+0100": a zone written as an offset from GMT.
	gmtOffset = regexp.MustCompile(`(?i)\b(?:GMT|UTC|UT)\s*([+-])(\d{1,2}):?(\d{2})?$`)
	// etcZone is "Etc/GMT", "Etc/GMT+5" (POSIX signs: +5 is five hours behind GMT).
	etcZone = regexp.MustCompile(`(?i)\bEtc/(?:GMT|UTC|UCT|Zulu|Greenwich)([+-]\d{1,2})?$`)
	// namedZone is a trailing zone abbreviation.
	namedZone = regexp.MustCompile(`\s([A-Za-z]{1,5})$`)
	// offsetColon is a trailing "+01:00" after a space, which Go's RFC 1123 layouts do not take.
	offsetColon = regexp.MustCompile(`\s([+-])(\d{2}):(\d{2})$`)
	spaces      = regexp.MustCompile(`\s+`)
)

// zoneOffsets are the zone abbreviations met in feeds, in minutes east of UTC. PT, ET, CT and
// MT are read as standard time (an hour's error in summer at worst, never a day).
var zoneOffsets = map[string]int{
	"UT": 0, "UTC": 0, "GMT": 0, "Z": 0, "WET": 0,
	"EST": -300, "EDT": -240, "CST": -360, "CDT": -300, "MST": -420, "MDT": -360, "PST": -480, "PDT": -420,
	"ET": -300, "CT": -360, "MT": -420, "PT": -480, "AKST": -540, "AKDT": -480, "HST": -600, "AST": -240, "ADT": -180,
	"NST": -210, "NDT": -150,
	"BST": 60, "IST": 330, "WEST": 60, "CET": 60, "MET": 60, "CEST": 120, "MEST": 120, "MESZ": 120, "MEZ": 60,
	"EET": 120, "EEST": 180, "MSK": 180, "JST": 540, "KST": 540, "HKT": 480, "SGT": 480, "AWST": 480,
	"ACST": 570, "ACDT": 630, "AEST": 600, "AEDT": 660, "NZST": 720, "NZDT": 780,
	"A": 60, "M": 720, "N": -60, "Y": -720,
}

var monthNames = strings.NewReplacer(
	"January", "Jan", "February", "Feb", "March", "Mar", "April", "Apr", "June", "Jun", "July", "Jul",
	"August", "Aug", "September", "Sep", "Sept", "Sep", "October", "Oct", "November", "Nov", "December", "Dec",
	"january", "Jan", "february", "Feb", "march", "Mar", "april", "Apr", "june", "Jun", "july", "Jul",
	"august", "Aug", "september", "Sep", "october", "Oct", "november", "Nov", "december", "Dec")

// normalizeDate rewrites s into the forms of dateLayouts: weekday dropped, month names
// abbreviated, zones as numeric offsets, white space single.
func normalizeDate(s string) string {
	s = spaces.ReplaceAllString(s, " ")
	if weekdayPrefix.MatchString(s) && !startsWithMonth(s) {
		s = weekdayPrefix.ReplaceAllString(s, "")
	}
	s = monthNames.Replace(s)
	if m := etcZone.FindStringSubmatchIndex(s); m != nil {
		off := 0
		if m[2] >= 0 {
			h, _ := strconv.Atoi(s[m[2]:m[3]])
			off = -h * 60
		}
		s = strings.TrimSpace(s[:m[0]]) + " " + formatOffset(off)
	} else if m := gmtOffset.FindStringSubmatch(s); m != nil {
		h, _ := strconv.Atoi(m[2])
		mins, _ := strconv.Atoi(m[3])
		off := h*60 + mins
		if m[1] == "-" {
			off = -off
		}
		s = strings.TrimSpace(s[:len(s)-len(m[0])]) + " " + formatOffset(off)
	} else if m := namedZone.FindStringSubmatch(s); m != nil {
		if off, ok := zoneOffsets[strings.ToUpper(m[1])]; ok {
			s = s[:len(s)-len(m[0])] + " " + formatOffset(off)
		}
	}
	if m := offsetColon.FindStringSubmatch(s); m != nil {
		s = s[:len(s)-len(m[0])] + " " + m[1] + m[2] + m[3]
	}
	return strings.TrimSpace(s)
}

func startsWithMonth(s string) bool {
	for _, m := range []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"} {
		if strings.HasPrefix(s, m) {
			return true
		}
	}
	return false
}

func formatOffset(mins int) string {
	sign := "+"
	if mins < 0 {
		sign, mins = "-", -mins
	}
	return sign + twoDigits(mins/60) + twoDigits(mins%60)
}

func twoDigits(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// dateLayouts are tried in order on a normalized date.
var dateLayouts = []string{
	"2 Jan 2006 15:04:05 -0700",
	"2 Jan 2006 15:04 -0700",
	"2 Jan 06 15:04:05 -0700",
	"2 Jan 06 15:04 -0700",
	"2 Jan 2006 15:04:05",
	"2 Jan 2006 15:04",
	"2 Jan 2006",
	"Jan 2 2006 15:04:05 -0700",
	"Jan 2, 2006 15:04:05 -0700",
	"Jan 2, 2006 15:04:05",
	"Jan 2, 2006 3:04 PM",
	"Jan 2, 2006",
	"Jan _2 15:04:05 2006",       // asctime, the weekday dropped
	"Jan _2 15:04:05 -0700 2006", // ruby
	"Jan _2 15:04:05 MST 2006",   // unix date, unknown zone name
	"2006-01-02T15:04:05Z0700",   // +0100 without a colon
	"2006-01-02T15:04:05.999999999Z0700",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04Z0700",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04:05",
	"2006-01-02T15:04",
	"2006-01-02T15",
	"2006-01-02 15:04:05Z07:00",
	"2006-01-02 15:04:05 -0700",
	"2006-01-02 15:04:05.999999999 -0700",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02 15:04 -0700",
	"2006-01-02 15:04",
	"2006-01-02Z07:00",
	"2006-01-02",
	"20060102T150405Z0700",
	"20060102T150405",
	"20060102",
	"2006-01",
	"2006-1",
	"2006-002",
	"2006/1/2 15:04:05 -0700",
	"2006/1/2 15:04:05",
	"2006/1/2 15:04",
	"2006/1/2",
	"2006.1.2 15:04:05",
	"2006.1.2",
	"2.1.2006 15:04:05",
	"2.1.2006 15:04",
	"2.1.2006",
	"2006",
}
