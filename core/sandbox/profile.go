package sandbox

import (
	"fmt"
	"slices"
	"strings"
)

// Profile returns the macOS sandbox-exec profile (SBPL) that enforces p: everything readable
// but the masked paths, writes only beneath the writable folders and never to the protected
// paths, no debugging of other processes, and outgoing network only when p allows it (TCP to
// p.Ports on the loopback otherwise). It is plain text so it can be checked on any platform.
func Profile(p Policy) string {
	var b strings.Builder
	b.WriteString("(version 1)\n(deny default)\n")
	b.WriteString("(allow process-exec)\n(allow process-fork)\n(allow signal (target same-sandbox))\n")
	b.WriteString("(allow sysctl-read)\n(allow mach-lookup)\n(allow ipc-posix-shm)\n(allow iokit-open)\n")
	b.WriteString("(allow file-read*)\n")
	writable := []string{p.Temp, "/dev"}
	if p.Tier == Workspace {
		writable = append(writable, p.Roots...)
		writable = append(writable, p.Writable...)
	}
	writable = slices.DeleteFunc(writable, func(s string) bool { return s == "" })
	if len(writable) > 0 {
		b.WriteString("(allow file-write*")
		for _, w := range writable {
			fmt.Fprintf(&b, "\n  (subpath %s)", sbplString(w))
		}
		b.WriteString(")\n")
	}
	if len(p.Protected) > 0 {
		b.WriteString("(deny file-write*")
		for _, pr := range p.Protected {
			fmt.Fprintf(&b, "\n  (subpath %s)", sbplString(pr))
		}
		b.WriteString(")\n")
	}
	if len(p.Masked) > 0 {
		b.WriteString("(deny file-read* file-write*")
		for _, m := range p.Masked {
			fmt.Fprintf(&b, "\n  (subpath %s)", sbplString(m))
		}
		b.WriteString(")\n")
	}
	if p.Network {
		b.WriteString("(allow network*)\n")
	} else {
		b.WriteString("(allow network-bind (local ip \"localhost:*\"))\n(allow network-inbound (local ip \"localhost:*\"))\n")
		b.WriteString("(allow network* (remote unix-socket))\n")
		for _, port := range p.Ports {
			fmt.Fprintf(&b, "(allow network-outbound (remote ip \"localhost:%d\"))\n", port)
		}
	}
	return b.String()
}

// sbplString quotes s as an SBPL string literal.
func sbplString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
