// Package sandbox runs the processes Cairn starts for the model under rules the kernel enforces,
// so that a command the parser misjudged can still do no harm (docs/sandbox.md, README
// "Security").
//
// A Policy says what one process may do: its tier (ReadOnly: nothing writable but a private
// temp folder; Workspace: the task's roots and the build caches writable, the protected paths
// inside them read-only), which paths read as absent, and whether it may open network
// connections. On Linux the policy is applied by Cairn's own binary re-executed as a small
// launcher: new user, mount and pid namespaces (a private process table, masks and read-only
// binds that never touch the user's tree), Landlock for writes and TCP connections, and a
// seccomp filter against ptrace, reading other processes' memory and non-TCP sockets. On macOS
// it is a generated sandbox-exec profile. Where neither can be set up, Probe says why and
// callers fail closed: every command asks.
//
// The launcher is entered from this package's init when the process was started as one (see
// Launcher), before any other package of the binary initialises, so starting a command in the
// sandbox costs little more than starting it plainly.
package sandbox
