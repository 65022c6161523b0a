package wine

import "syscall"

// Detected reports whether Wine runs this binary: Wine's ntdll exports wine_get_version, which
// no Windows ntdll has.
func Detected() bool {
	return syscall.NewLazyDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}
