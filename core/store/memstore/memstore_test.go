package memstore_test

import (
	"testing"

	"github.com/cairnhq/cairn/core/store/memstore"
	"github.com/cairnhq/cairn/core/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(*testing.T) storetest.Store { return storetest.Memory(memstore.New()) })
}
