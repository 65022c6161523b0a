package mentions

import (
	"testing"

	"github.com/cairnhq/cairn/core/helper/helpertest"
)

// TestMain gives the tests a real cairn-helper (core/helper): PDF and URL mentions are converted through it.
func TestMain(m *testing.M) { helpertest.Main(m) }
