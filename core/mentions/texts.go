package mentions

import (
	_ "embed"
	"fmt"
	"strings"
	"sync"
	"text/template"

	"github.com/cairnhq/cairn/core/internal/mdsections"
)

//go:embed texts.md
var textsMD string

// texts maps a section heading of texts.md to its template. The file is embedded, so a parse
// failure is a build defect that the key test exposes; it is parsed on first use, not at
// every process start.
var texts = sync.OnceValue(func() map[string]*template.Template { return mdsections.Templates(textsMD) })

// textData feeds the templates.
type textData struct {
	Path, Hash, URL, Err, Status, Type string
	N, Shown, Size                     int64
}

func render(key string, d textData) string {
	t, ok := texts()[key]
	if !ok {
		// A missing section is a defect in texts.md; the tests list every key.
		return fmt.Sprintf("(%s)", key)
	}
	var b strings.Builder
	if err := t.Execute(&b, d); err != nil {
		return fmt.Sprintf("(%s)", key)
	}
	return b.String()
}
