package readfile

import (
	"testing"

	"github.com/cairnhq/cairn/core/helper/helpertest"
)

// TestMain gives the tests a real cairn-helper (core/helper): read_file reads PDFs through it.
func TestMain(m *testing.M) { helpertest.Main(m) }
