package envdetails

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestFormatTime(t *testing.T) {
	cases := []struct {
		name string
		at   time.Time
		want string
	}{
		{"fixed +5:30", time.Date(2026, 6, 1, 8, 0, 0, 0, time.FixedZone("IST", 5*3600+1800)),
			"Monday, 2026-06-01 08:00:00 (IST, UTC+5:30)"},
		{"fixed -3:30", time.Date(2026, 6, 1, 8, 0, 0, 0, time.FixedZone("X", -(3*3600+1800))),
			"Monday, 2026-06-01 08:00:00 (X, UTC-3:30)"},
		{"Kolkata", time.Date(2026, 1, 2, 15, 4, 5, 0, zone(t, "Asia/Kolkata")),
			"Friday, 2026-01-02 15:04:05 (Asia/Kolkata, UTC+5:30)"},
		{"Kathmandu", time.Date(2026, 1, 2, 15, 4, 5, 0, zone(t, "Asia/Kathmandu")),
			"Friday, 2026-01-02 15:04:05 (Asia/Kathmandu, UTC+5:45)"},
		{"St Johns winter", time.Date(2026, 1, 2, 15, 4, 5, 0, zone(t, "America/St_Johns")),
			"Friday, 2026-01-02 15:04:05 (America/St_Johns, UTC-3:30)"},
		{"St Johns summer", time.Date(2026, 7, 2, 15, 4, 5, 0, zone(t, "America/St_Johns")),
			"Thursday, 2026-07-02 15:04:05 (America/St_Johns, UTC-2:30)"},
		{"Chatham", time.Date(2026, 7, 2, 15, 4, 5, 0, zone(t, "Pacific/Chatham")),
			"Thursday, 2026-07-02 15:04:05 (Pacific/Chatham, UTC+12:45)"},
		{"New York", time.Date(2026, 7, 2, 15, 4, 5, 0, zone(t, "America/New_York")),
			"Thursday, 2026-07-02 15:04:05 (America/New_York, UTC-4:00)"},
		{"UTC", time.Date(2026, 7, 2, 15, 4, 5, 0, time.UTC), "Thursday, 2026-07-02 15:04:05 (UTC, UTC+0:00)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := FormatTime(c.at); got != c.want {
				t.Errorf("FormatTime = %q, want %q", got, c.want)
			}
		})
	}
}

// The machine's own zone prints an IANA name, not "Local".
func TestFormatTimeLocal(t *testing.T) {
	got := FormatTime(time.Now())
	if got == "" || strings.Contains(got, "Local") {
		t.Errorf("FormatTime(local) = %q", got)
	}
}

func TestIANAName(t *testing.T) {
	link := func(target string, err error) func() (string, error) {
		return func() (string, error) { return target, err }
	}
	noLink := link("", errors.New("no link"))
	cases := []struct {
		name, tz string
		link     func() (string, error)
		want     string
	}{
		{"TZ name", "Asia/Kathmandu", noLink, "Asia/Kathmandu"},
		{"TZ with colon", ":Europe/Paris", noLink, "Europe/Paris"},
		{"TZ path", "/usr/share/zoneinfo/America/St_Johns", noLink, "America/St_Johns"},
		{"localtime link", "", link("/usr/share/zoneinfo/Asia/Kolkata", nil), "Asia/Kolkata"},
		{"relative link", "", link("../usr/share/zoneinfo/Etc/UTC", nil), "Etc/UTC"},
		{"no information", "", noLink, ""},
		{"link elsewhere", "", link("/etc/mytime", nil), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := ianaName(c.tz, c.link); got != c.want {
				t.Errorf("ianaName(%q) = %q, want %q", c.tz, got, c.want)
			}
		})
	}
}
