package sandbox

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"unsafe"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"golang.org/x/sys/unix"
)

// minLandlockABI is the oldest Landlock the sandbox accepts: 4 restricts TCP connections.
const minLandlockABI = 4

// Landlock's file rights: those only folders have, and the whole set the sandbox handles.
const (
	llFileRights = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE |
		unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE
	llDirOnly = unix.LANDLOCK_ACCESS_FS_READ_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR |
		unix.LANDLOCK_ACCESS_FS_REMOVE_FILE | unix.LANDLOCK_ACCESS_FS_MAKE_CHAR |
		unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG |
		unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO |
		unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK | unix.LANDLOCK_ACCESS_FS_MAKE_SYM | unix.LANDLOCK_ACCESS_FS_REFER
	llHandled = llFileRights | llDirOnly
	llRead    = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR
	// llRuleNetPort is LANDLOCK_RULE_NET_PORT, which golang.org/x/sys/unix does not name yet.
	llRuleNetPort = 2
)

// llNetPortAttr is struct landlock_net_port_attr.
type llNetPortAttr struct {
	allowedAccess uint64
	port          uint64
}

// LandlockABI returns the kernel's Landlock ABI version, or an error when Landlock is off.
func LandlockABI() (int, error) {
	v, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if e != 0 {
		return 0, e
	}
	return int(v), nil
}

func llAddRule(fd int, ruleType int, attr unsafe.Pointer) error {
	if _, _, e := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(fd), uintptr(ruleType), uintptr(attr), 0, 0, 0); e != 0 {
		return e
	}
	return nil
}

// devWritable are the devices every command may write: the terminal and the usual sinks.
var devWritable = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/pts", "/dev/ptmx", "/dev/shm"}

// restrictThread applies Landlock and seccomp to the calling OS thread and drops every
// capability from its bounding set; a process it starts inherits all three.
func restrictThread(p *Policy) error {
	if err := dropBounding(); err != nil {
		return err
	}
	if err := landlock(p); err != nil {
		return err
	}
	return loadSeccomp(p)
}

// dropBounding empties the capability bounding set, so the command holds no capability even
// when it runs as root inside the namespace.
func dropBounding() error {
	last := 40
	if b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			last = n
		}
	}
	for c := 0; c <= last; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
			return fmt.Errorf("drop capability %d: %w", c, err)
		}
	}
	return nil
}

// landlock restricts the thread: everything readable, only the policy's folders writable,
// TCP connections only to its ports when the network is off, and no signals or abstract
// sockets to processes outside the sandbox.
func landlock(p *Policy) error {
	abi, err := LandlockABI()
	if err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	if abi < minLandlockABI {
		return fmt.Errorf("landlock ABI %d is older than %d", abi, minLandlockABI)
	}
	attr := unix.LandlockRulesetAttr{Handled_access_fs: llHandled}
	if !p.Network {
		attr.Handled_access_net = unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
	}
	if abi >= 6 {
		attr.Scoped = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL
	}
	r, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if e != 0 {
		return fmt.Errorf("landlock ruleset: %w", e)
	}
	fd := int(r)
	defer func() { _ = unix.Close(fd) }() // enforced rules stay with the thread
	if err := allowPath(fd, "/", llRead); err != nil {
		return err
	}
	writable := append([]string{p.Temp}, devWritable...)
	if p.Tier == Workspace {
		writable = append(writable, p.Roots...)
		writable = append(writable, p.Writable...)
	}
	for _, w := range writable {
		if w == "" {
			continue
		}
		if err := allowPath(fd, w, llHandled); err != nil && !errors.Is(err, unix.ENOENT) {
			return err
		}
	}
	if !p.Network {
		for _, port := range p.Ports {
			rule := llNetPortAttr{allowedAccess: unix.LANDLOCK_ACCESS_NET_CONNECT_TCP, port: uint64(port)}
			if err := llAddRule(fd, llRuleNetPort, unsafe.Pointer(&rule)); err != nil {
				return fmt.Errorf("landlock port %d: %w", port, err)
			}
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if _, _, e := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(fd), 0, 0); e != 0 {
		return fmt.Errorf("landlock restrict: %w", e)
	}
	return nil
}

// allowPath grants access beneath path; a file gets only the rights a file can have.
func allowPath(fd int, path string, access uint64) error {
	pfd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("landlock %s: %w", path, err)
	}
	defer func() { _ = unix.Close(pfd) }()
	var st unix.Stat_t
	if err := unix.Fstat(pfd, &st); err != nil {
		return fmt.Errorf("landlock %s: %w", path, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		access &= llFileRights
	}
	rule := unix.LandlockPathBeneathAttr{Allowed_access: access, Parent_fd: int32(pfd)}
	if err := llAddRule(fd, unix.LANDLOCK_RULE_PATH_BENEATH, unsafe.Pointer(&rule)); err != nil {
		return fmt.Errorf("landlock %s: %w", path, err)
	}
	return nil
}

// Socket constants for the seccomp filter.
const (
	sockTypeDgramBit = 2 // SOCK_DGRAM (2), SOCK_RAW (3)
	sockTypeRDMBit   = 4 // SOCK_RDM (4), SOCK_SEQPACKET (5)
	ipprotoTCP       = 6
)

// loadSeccomp refuses, with EPERM, the calls that reach into other processes (ptrace, reading
// or writing their memory), kernel facilities a command has no business with, and, when the
// network is off, every internet socket but TCP (which Landlock restricts by port).
func loadSeccomp(p *Policy) error {
	groups := []seccomp.SyscallGroup{{
		Action: seccomp.ActionErrno,
		Names: []string{
			"ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
			"keyctl", "add_key", "request_key", "bpf", "perf_event_open", "userfaultfd",
			"io_uring_setup", "io_uring_enter", "io_uring_register", "open_by_handle_at",
			"kexec_load", "init_module", "finit_module", "delete_module",
		},
	}}
	if !p.Network {
		var conds []seccomp.NameWithConditions
		for _, domain := range []uint64{unix.AF_INET, unix.AF_INET6} {
			for _, c := range [][]seccomp.Condition{
				{{Argument: 1, Operation: seccomp.BitsSet, Value: sockTypeDgramBit}},
				{{Argument: 1, Operation: seccomp.BitsSet, Value: sockTypeRDMBit}},
				{{Argument: 2, Operation: seccomp.GreaterThan, Value: ipprotoTCP}},
			} {
				conds = append(conds, seccomp.NameWithConditions{Name: "socket",
					Conditions: append(seccomp.ArgumentConditions{{Argument: 0, Operation: seccomp.Equal, Value: domain}}, c...)})
			}
		}
		// Raw frames.
		conds = append(conds, seccomp.NameWithConditions{Name: "socket",
			Conditions: seccomp.ArgumentConditions{{Argument: 0, Operation: seccomp.Equal, Value: unix.AF_PACKET}}})
		groups = append(groups, seccomp.SyscallGroup{Action: seccomp.ActionErrno, NamesWithCondtions: conds})
	}
	err := seccomp.LoadFilter(seccomp.Filter{
		NoNewPrivs: true,
		Policy:     seccomp.Policy{DefaultAction: seccomp.ActionAllow, Syscalls: groups},
	})
	if err != nil {
		return fmt.Errorf("seccomp: %w", err)
	}
	return nil
}
