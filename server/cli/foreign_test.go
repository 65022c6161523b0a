package cli

import (
	"context"
	"os"
	"testing"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"

	"github.com/cairnhq/cairn/server"
)

// TestForeignDaemon is the native client half of scripts/test-cross.sh: a daemon built for
// another platform (linux-arm64 under qemu, win32-x64 under Wine) serves, and this client,
// built for this machine, reads its handshake file, connects with the CLI's own dial and makes
// one authenticated call. CAIRN_FOREIGN_HANDSHAKE names the handshake file;
// CAIRN_FOREIGN_TOKEN, when set, is the token file's path on this machine (a Windows daemon
// writes its path as Wine sees it). Without them there is no daemon to talk to: skipped.
func TestForeignDaemon(t *testing.T) {
	hsPath := os.Getenv("CAIRN_FOREIGN_HANDSHAKE")
	if hsPath == "" {
		t.Skip("CAIRN_FOREIGN_HANDSHAKE not set: run by scripts/test-cross.sh against a foreign daemon")
	}
	hs, err := server.ReadHandshakeFile(hsPath)
	if err != nil {
		t.Fatal(err)
	}
	if tok := os.Getenv("CAIRN_FOREIGN_TOKEN"); tok != "" {
		hs.TokenFile = tok
	}
	c, err := dial(hs.Address, hs.TokenFile)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	}()
	st, err := c.state.GetState(context.Background(), &cairnv1.GetStateRequest{})
	if err != nil {
		t.Fatalf("GetState over %s: %v", hs.Address, err)
	}
	if st.GetVersion() != hs.Version {
		t.Errorf("GetState says version %q, the handshake %q", st.GetVersion(), hs.Version)
	}
	t.Logf("daemon pid %d version %s at %s answered GetState (data dir %s)", hs.PID, st.GetVersion(), hs.Address, st.GetDataDir())
}
