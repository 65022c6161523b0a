package lsp_test

import (
	"errors"

	"github.com/cairnhq/cairn/core/lsp"
)

func errorIs(err error) bool { return errors.Is(err, lsp.ErrUnavailable) }
