package edit

import "context"

// Discard reverts the diff view opened while the call streamed, if any: the call will not run
// (the reply was cut off or the stream broke), so nothing the preview wrote may stay.
func (t *Tool) Discard(ctx context.Context) { t.closeSession(ctx) }
