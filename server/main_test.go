package server_test

import (
	"testing"

	"github.com/cairnhq/cairn/core/helper/helpertest"
)

// TestMain gives the daemon's tests a real cairn-helper (core/helper): the OpenTelemetry
// exporter runs there (README "OpenTelemetry").
func TestMain(m *testing.M) { helpertest.Main(m) }
