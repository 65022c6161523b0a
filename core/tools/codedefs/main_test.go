package codedefs

import (
	"testing"

	"github.com/cairnhq/cairn/core/helper/helpertest"
)

// TestMain gives the tests a real cairn-helper (core/helper): the parsing runs there.
func TestMain(m *testing.M) { helpertest.Main(m) }
