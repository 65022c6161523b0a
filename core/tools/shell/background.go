package shell

import (
	"context"
	"fmt"
	"time"

	"github.com/cairnhq/cairn/core/tools"
)

// stopWait bounds how long Stop waits for a command and its process group to be gone: the
// hosts' grace between SIGTERM and SIGKILL (5 s, docs/tools.md "execute_command") and a margin.
const stopWait = 8 * time.Second

// groupPoll is how often Stop looks whether the process group is empty yet.
const groupPoll = 50 * time.Millisecond

// alive reports whether the command still runs: its shell, or anything it left running
// after the shell exited (leftRunning).
func (t *Tracked) alive() bool {
	return !t.Finished() || t.leftRunning()
}

// leftRunning reports whether a process of the command runs: in its process group (a server
// started with `&`), or, where the host tells (tools.MemberProcess), outside it (`setsid
// server &`, a program that daemonizes itself).
func (t *Tracked) leftRunning() bool {
	if m, ok := t.proc.(tools.MemberProcess); ok {
		return len(m.Members()) > 0
	}
	return groupAlive(t.group)
}

// Stop ends the command and everything in its process group (a job object on Windows), and
// what left the group where the host tells (leftRunning), and waits until they are gone, until ctx ends or stopWait passed. It returns the exit code; a
// command that had already finished keeps its own. Stopping a finished command whose group is
// empty does nothing.
func (t *Tracked) Stop(ctx context.Context) (int, error) {
	if !t.alive() {
		return t.ExitCode(), nil
	}
	ctx, cancel := context.WithTimeout(ctx, stopWait)
	defer cancel()
	if err := t.Kill(); err != nil {
		return -1, err
	}
	select {
	case <-t.done:
	case <-ctx.Done():
		return -1, fmt.Errorf("shell: stop %q: it did not end: %w", t.command, ctx.Err())
	}
	tick := time.NewTicker(groupPoll)
	defer tick.Stop()
	for t.leftRunning() {
		select {
		case <-tick.C:
		case <-ctx.Done():
			return t.ExitCode(), fmt.Errorf("shell: stop %q: processes of its group are left: %w", t.command, ctx.Err())
		}
	}
	return t.ExitCode(), nil
}

// Running reports how long the command has run.
func (t *Tracked) Running() time.Duration { return time.Since(t.started) }

// Ports returns the TCP ports the command's processes (leftRunning's) listen on, where the
// platform tells (Linux); nil elsewhere.
func (t *Tracked) Ports() []int {
	if m, ok := t.proc.(tools.MemberProcess); ok {
		return portsOf(m.Members())
	}
	return listeningPorts(t.group)
}

// Whole returns everything the command printed so far, cleaned: from memory while it is
// small, else from the file that keeps it. It fails when the whole output was not kept (no
// folder for it, or saving failed).
func (t *Tracked) Whole() (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.full.text()
}

// SavedPath returns the file holding the whole output, "" while it is only in memory.
func (t *Tracked) SavedPath() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.full.path
}
