package cli

import (
	"fmt"
	"os"
	"strings"

	"github.com/cairnhq/cairn/core/sandbox"
)

// kernel names the running kernel.
func kernel() string {
	typ, _ := os.ReadFile("/proc/sys/kernel/ostype") // a kernel without /proc: named by release only
	rel, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(strings.TrimSpace(string(typ)) + " " + strings.TrimSpace(string(rel)))
}

// platformFacts are what the Linux sandbox depends on: Landlock and unprivileged user
// namespaces (core/sandbox).
func platformFacts() []string {
	var out []string
	if abi, err := sandbox.LandlockABI(); err != nil {
		out = append(out, fmt.Sprintf("landlock: off (%v)", err))
	} else {
		out = append(out, fmt.Sprintf("landlock: ABI %d", abi))
	}
	ns := []string{}
	for _, k := range []struct{ name, path string }{
		{"user.max_user_namespaces", "/proc/sys/user/max_user_namespaces"},
		{"kernel.unprivileged_userns_clone", "/proc/sys/kernel/unprivileged_userns_clone"},
		{"kernel.apparmor_restrict_unprivileged_userns", "/proc/sys/kernel/apparmor_restrict_unprivileged_userns"},
	} {
		b, err := os.ReadFile(k.path)
		switch {
		case err == nil:
			ns = append(ns, k.name+" = "+strings.TrimSpace(string(b)))
		case os.IsNotExist(err):
			if k.name == "user.max_user_namespaces" {
				ns = append(ns, k.name+" not present")
			}
		default:
			ns = append(ns, fmt.Sprintf("%s unreadable (%v)", k.name, err))
		}
	}
	out = append(out, "user namespaces: "+strings.Join(ns, ", "))
	return out
}
