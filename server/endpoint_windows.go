//go:build windows

package server

import (
	"context"
	"fmt"
	"net"
	"time"
	"unsafe"

	"github.com/Microsoft/go-winio"
	"golang.org/x/sys/windows"
)

// listenLocal listens on the daemon's named pipe (cfg.Socket when it names one, the pipe
// derived from it when it is a path, else PipeName(DataDir)), with a DACL that lets only the current user connect. The pipe's first
// instance is created exclusively, so of several daemons starting at once one wins; a pipe
// that exists and answers is another daemon's, one that exists and does not answer is
// reported as it is (a pipe vanishes with its last handle: there is nothing stale to remove).
// The pipe leaves no file behind, so the returned socket path is empty.
func listenLocal(cfg Config) (net.Listener, string, string, error) {
	name := cfg.Socket
	if name == "" {
		name = PipeName(cfg.DataDir)
	}
	if !IsPipePath(name) {
		// A socket path (`cairn run` asks for one in its temporary folder) names the pipe
		// derived from it, so each path still gets its own endpoint.
		name = PipeName(name)
	}
	sid, err := currentUserSID()
	if err != nil {
		return nil, "", "", err
	}
	lis, err := winio.ListenPipe(name, &winio.PipeConfig{SecurityDescriptor: userOnlySDDL(sid, "GA")})
	if err != nil {
		if DaemonAnswersPipe(name) {
			return nil, "", "", fmt.Errorf("server: %w on %s", ErrDaemonRunning, name)
		}
		return nil, "", "", fmt.Errorf("server: listen on %s: %w", name, err)
	}
	return lis, PipeScheme + name, "", nil
}

// DialPipe connects to a daemon's named pipe.
func DialPipe(ctx context.Context, name string) (net.Conn, error) {
	c, err := winio.DialPipeContext(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("server: dial %s: %w", name, err)
	}
	return c, nil
}

// DaemonAnswersPipe reports whether a gRPC server answers on the pipe: it sends its HTTP/2
// settings as soon as it accepts, as daemonAnswers explains for sockets.
func DaemonAnswersPipe(name string) bool {
	timeout := time.Second
	c, err := winio.DialPipe(name, &timeout)
	if err != nil {
		return false
	}
	defer func() { _ = c.Close() }() // a probe: it carried nothing
	if err := c.SetReadDeadline(time.Now().Add(2 * time.Second)); err != nil {
		return false
	}
	var b [1]byte
	n, err := c.Read(b[:])
	return n == 1 && err == nil
}

// currentUserSID returns the SID of the user this process runs as, in string form.
func currentUserSID() (string, error) {
	u, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return "", fmt.Errorf("server: current user: %w", err)
	}
	return u.User.Sid.String(), nil
}

// userOnlyAttributes returns security attributes that create an object owned by, and open
// only to, the current user (rights as in userOnlySDDL).
func userOnlyAttributes(rights string) (*windows.SecurityAttributes, error) {
	sid, err := currentUserSID()
	if err != nil {
		return nil, err
	}
	sd, err := windows.SecurityDescriptorFromString(userOnlySDDL(sid, rights))
	if err != nil {
		return nil, fmt.Errorf("server: security descriptor: %w", err)
	}
	sa := &windows.SecurityAttributes{SecurityDescriptor: sd}
	sa.Length = uint32(unsafe.Sizeof(*sa))
	return sa, nil
}

// ownedByCurrentUser reports whether the file or folder at path is owned by the current user.
func ownedByCurrentUser(path string) (bool, error) {
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.OWNER_SECURITY_INFORMATION)
	if err != nil {
		return false, fmt.Errorf("server: owner of %s: %w", path, err)
	}
	owner, _, err := sd.Owner()
	if err != nil {
		return false, fmt.Errorf("server: owner of %s: %w", path, err)
	}
	u, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return false, fmt.Errorf("server: current user: %w", err)
	}
	return owner.Equals(u.User.Sid), nil
}
