package webfetch

import (
	"testing"

	"github.com/cairnhq/cairn/core/helper/helpertest"
)

// TestMain gives the tests a real cairn-helper (core/helper): web_fetch converts HTML through it.
func TestMain(m *testing.M) { helpertest.Main(m) }
