package store_test

import (
	"testing"

	"github.com/cairnhq/cairn/core/store"
	"github.com/cairnhq/cairn/core/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Store {
		s, err := store.Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		return storetest.Files(s)
	})
}
