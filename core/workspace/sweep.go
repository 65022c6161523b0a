package workspace

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// tempMarker sits between the target's name and os.CreateTemp's random digits in the temp
// file WriteFileAtomic writes next to its target: ".NAME.cairn-123456789".
const tempMarker = ".cairn-"

// StaleTempAge is how old a leftover temp file must be before a sweep removes it. A write in
// progress keeps its temp file for milliseconds; a minute leaves a wide margin for a slow
// disk and for another daemon writing into the same folder.
const StaleTempAge = time.Minute

// isTempName reports whether name has exactly the shape of WriteFileAtomic's temp files: a
// dot, a non-empty target name, the marker, then only decimal digits.
func isTempName(name string) bool {
	if len(name) < 2 || name[0] != '.' {
		return false
	}
	i := strings.LastIndex(name, tempMarker)
	if i < 2 {
		return false
	}
	digits := name[i+len(tempMarker):]
	if digits == "" {
		return false
	}
	for j := 0; j < len(digits); j++ {
		if digits[j] < '0' || digits[j] > '9' {
			return false
		}
	}
	return true
}

// sweepTemps removes, from one folder's entries, the regular files left behind by atomic
// writes that crashed before their rename, once they are older than StaleTempAge. It is best
// effort: a file that cannot be removed now stays listed and is tried again on the next scan.
// It returns the entries that are still there, reusing the slice.
func sweepTemps(dir string, entries []fs.DirEntry, now time.Time) []fs.DirEntry {
	kept := entries[:0]
	for _, e := range entries {
		if e.Type().IsRegular() && isTempName(e.Name()) {
			info, err := e.Info()
			if err == nil && info.Mode().IsRegular() && now.Sub(info.ModTime()) >= StaleTempAge &&
				os.Remove(filepath.Join(dir, e.Name())) == nil {
				continue
			}
		}
		kept = append(kept, e)
	}
	return kept
}
