package envdetails

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairnhq/cairn/core/lazy"
)

// FormatTime renders a moment as the model sees it: weekday, date and 24-hour time in t's
// location, the IANA zone name and the UTC offset with its minutes, e.g.
// "Sunday, 2026-11-22 14:05:09 (Asia/Kolkata, UTC+5:30)". Cline prints fractional offsets as
// "UTC+5.5:00"; here UTC-3:30 and UTC+5:45 come out as written in tz tables.
func FormatTime(t time.Time) string {
	return fmt.Sprintf("%s (%s, %s)", t.Format("Monday, 2006-01-02 15:04:05"), zoneName(t), utcOffset(t))
}

func utcOffset(t time.Time) string {
	_, off := t.Zone()
	sign := "+"
	if off < 0 {
		sign, off = "-", -off
	}
	return fmt.Sprintf("UTC%s%d:%02d", sign, off/3600, off%3600/60)
}

// zoneName is the IANA name of t's location. time.Local calls itself "Local", so for it the
// name comes from $TZ or the /etc/localtime link, and failing both the zone abbreviation.
func zoneName(t time.Time) string {
	if name := t.Location().String(); name != "Local" {
		return name
	}
	if name := localZone.Get(); name != "" {
		return name
	}
	abbr, _ := t.Zone()
	return abbr
}

var localZone = lazy.Value[string]{New: func() string {
	return ianaName(os.Getenv("TZ"), func() (string, error) { return os.Readlink("/etc/localtime") })
}}

// ianaName extracts a zone name from a TZ value ("Europe/Paris", ":Europe/Paris" or a path
// into a zoneinfo folder), else from where /etc/localtime points.
func ianaName(tz string, readlink func() (string, error)) string {
	tz = strings.TrimPrefix(tz, ":")
	if tz != "" {
		if !strings.HasPrefix(tz, "/") && !filepath.IsAbs(tz) { // a zoneinfo file: a POSIX path everywhere
			return tz
		}
		return afterZoneinfo(tz)
	}
	target, err := readlink()
	if err != nil {
		return ""
	}
	return afterZoneinfo(target)
}

func afterZoneinfo(p string) string {
	p = filepath.ToSlash(p)
	if _, rest, ok := strings.Cut(p, "zoneinfo/"); ok {
		return rest
	}
	return ""
}
