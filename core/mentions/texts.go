package mentions

import (
	_ "embed"
	"fmt"

	"github.com/cairnhq/cairn/core/internal/mdsections"
	"github.com/cairnhq/cairn/core/lazy"
)

//go:embed texts.md
var textsMD string

// texts maps a section heading of texts.md to its template. The file is embedded, so a parse
// failure is a build defect that the key test exposes; it is parsed on first use, not at
// every process start.
var texts = lazy.Value[mdsections.Set]{New: func() mdsections.Set { return mdsections.Templates(textsMD) }}

// textData feeds the templates.
type textData struct {
	Path, Hash, URL, Err, Status, Type string
	N, Shown, Size                     int64
}

func render(key string, d textData) string {
	out, ok := texts.Get().Render(key, d)
	if !ok {
		// A missing or broken section is a defect in texts.md; the tests list every key.
		return fmt.Sprintf("(%s)", key)
	}
	return out
}
