package mentions

import "errors"

// errTooLarge reports a document too large to extract; it only ever reaches the model as text.
var errTooLarge = errors.New("the document is too large to extract")
