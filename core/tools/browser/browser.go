// Package browser gives the model a web browser: browser_action launches a page in the
// machine's own Chromium (or Chrome, Edge, or a browser already running with remote
// debugging), clicks, types and scrolls, and after every action returns a screenshot, the
// console output since the previous action, the URL and the mouse position.
//
// A task has one Session, kept between actions and closed by the close action, by the task's
// end, and when the daemon exits; Chromium also dies with the daemon's process when that is
// killed (chromedp runs it with a parent-death signal on Linux). Cairn never downloads a
// browser.
package browser

import (
	_ "embed"
	"strings"

	"github.com/cairnhq/cairn/core/toolnames"
	"github.com/cairnhq/cairn/core/tools"
)

// Name is the tool's name in the prompt.
const Name = toolnames.BrowserAction

// Model-facing texts (docs/conventions.md, "Comments and model-facing text").
var (
	//go:embed description.md
	descriptionText string
	//go:embed messages.md
	messagesText string
	messages     = tools.Texts{MD: &messagesText}
)

// OpenSessionText is the result of a call to another tool while a session is open: the model
// must close the browser first.
func OpenSessionText(tool string) string {
	return messages.Format("session-open", tool, tool)
}

func description(width, height int) string {
	return strings.TrimSpace(strings.ReplaceAll(descriptionText, "{{viewport}}", viewport(width, height)))
}
