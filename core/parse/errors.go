package parse

import "errors"

// ErrBadBlock is wrapped by Block.UnmarshalJSON when the JSON is not a block of a known type.
var ErrBadBlock = errors.New("parse: not a block")
