package server

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// PipeScheme prefixes a handshake address that names a Windows named pipe
// (`pipe://\\.\pipe\cairn-…`); `unix://` names a Unix socket and anything else is host:port.
const PipeScheme = "pipe://"

// pipePrefix is where every named pipe lives on a Windows machine.
const pipePrefix = `\\.\pipe\`

// PipeName returns the named pipe a daemon serving dataDir listens on under Windows. Pipes
// share one machine-wide namespace, so the name is derived from the data dir, compared the
// way Windows compares paths (case-insensitive, either slash, no trailing separator): every
// window of one user finds the same pipe, and other users' data dirs give other names.
func PipeName(dataDir string) string {
	norm := strings.ToLower(strings.ReplaceAll(dataDir, "/", `\`))
	for len(norm) > 3 && strings.HasSuffix(norm, `\`) {
		norm = norm[:len(norm)-1]
	}
	sum := sha256.Sum256([]byte(norm))
	return pipePrefix + "cairn-" + hex.EncodeToString(sum[:8])
}

// IsPipePath reports whether name is a named pipe path (`\\.\pipe\NAME`, either slash).
func IsPipePath(name string) bool {
	n := strings.ReplaceAll(name, "/", `\`)
	return len(n) > len(pipePrefix) && strings.EqualFold(n[:len(pipePrefix)], pipePrefix)
}

// PipeAddress splits a handshake address into its pipe path when it names one.
func PipeAddress(address string) (string, bool) {
	name, ok := strings.CutPrefix(address, PipeScheme)
	if !ok || !IsPipePath(name) {
		return "", false
	}
	return name, true
}

// userOnlySDDL is a security descriptor, in Windows' SDDL notation, that makes sid the owner
// and gives it, and nobody else, the rights named (GA: all rights on a pipe, FA: all rights on
// a file). P protects the DACL: nothing is inherited from the folder, so a permissive parent
// (an administrator's shared profile folder, say) cannot widen it.
func userOnlySDDL(sid, rights string) string {
	return "O:" + sid + "D:P(A;;" + rights + ";;;" + sid + ")"
}
