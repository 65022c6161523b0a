package shell

// groupAlive: on Windows a command runs in a job object that Kill ends as a whole, and the
// process reports no group, so there is nothing to look for.
func groupAlive(int) bool { return false }

// listeningPorts is Linux only: elsewhere the ports are left out.
func listeningPorts(int) []int { return nil }

// portsOf is Linux only: elsewhere the ports are left out.
func portsOf([]int) []int { return nil }
