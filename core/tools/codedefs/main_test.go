package codedefs

import (
	"bufio"
	"fmt"
	"os"
	"testing"

	"github.com/cairnhq/cairn/core/helper/helpertest"
)

// crashEnv makes the test binary a helper that reads one request, says why it fails and
// exits with status 3 (TestWorkerCrash).
const crashEnv = "CAIRN_CODEDEFS_CRASHING_HELPER"

// TestMain gives the tests a real cairn-helper (core/helper): the parsing runs there.
func TestMain(m *testing.M) {
	if os.Getenv(crashEnv) != "" {
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // a stand-in: what it reads is beside the point
		fmt.Fprintln(os.Stderr, "grammar fault at byte 42")
		os.Exit(3)
	}
	helpertest.Main(m)
}
