package shell

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// groupMembers returns the processes of group pgid that are not zombies, read from /proc.
func groupMembers(pgid int) []int {
	if pgid <= 0 {
		return nil
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // it ended meanwhile
		}
		// After the command name in parentheses: state, ppid, pgrp.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) < 3 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		if g, err := strconv.Atoi(f[2]); err == nil && g == pgid {
			pids = append(pids, pid)
		}
	}
	return pids
}

// groupAlive reports whether any process of group pgid still runs.
func groupAlive(pgid int) bool { return len(groupMembers(pgid)) > 0 }

// listeningPorts returns the TCP ports (IPv4 and IPv6) on which a process of group pgid
// listens (portsOf).
func listeningPorts(pgid int) []int { return portsOf(groupMembers(pgid)) }

// portsOf returns the TCP ports (IPv4 and IPv6) on which one of pids listens: the socket
// inodes of their descriptors matched against /proc/net/tcp{,6}.
func portsOf(pids []int) []int {
	if len(pids) == 0 {
		return nil
	}
	inodes := map[string]bool{}
	for _, pid := range pids {
		dir := filepath.Join("/proc", strconv.Itoa(pid), "fd")
		fds, err := os.ReadDir(dir)
		if err != nil {
			continue // another user's process, or gone
		}
		for _, fd := range fds {
			link, err := os.Readlink(filepath.Join(dir, fd.Name()))
			if err != nil {
				continue
			}
			if ino, ok := strings.CutPrefix(link, "socket:["); ok {
				inodes[strings.TrimSuffix(ino, "]")] = true
			}
		}
	}
	if len(inodes) == 0 {
		return nil
	}
	var ports []int
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		ports = append(ports, listenersIn(table, inodes)...)
	}
	slices.Sort(ports)
	return slices.Compact(ports)
}

// listenState is the LISTEN state in /proc/net/tcp's st column.
const listenState = "0A"

// listenersIn returns the local ports of the listening sockets of table whose inode is in
// inodes.
func listenersIn(table string, inodes map[string]bool) []int {
	f, err := os.Open(table)
	if err != nil {
		return nil
	}
	defer func() { _ = f.Close() }() // read-only
	var ports []int
	sc := bufio.NewScanner(f)
	sc.Scan() // the header
	for sc.Scan() {
		// sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
		cols := strings.Fields(sc.Text())
		if len(cols) < 10 || cols[3] != listenState || !inodes[cols[9]] {
			continue
		}
		_, hexPort, ok := strings.Cut(cols[1], ":")
		if !ok {
			continue
		}
		if port, err := strconv.ParseUint(hexPort, 16, 16); err == nil {
			ports = append(ports, int(port))
		}
	}
	return ports
}
