package toolcall

import (
	"context"
	"encoding/base64"
	"strings"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/prompt"
	"github.com/cairnhq/cairn/core/tools"
)

// What the model reads after a call: the `[tool for 'arg'] Result:` header, the result or the
// wrapped error, its images and the user's feedback.

// mistake records a model mistake and returns the feedback content.
func mistake(ctx context.Context, d Deps, header string, res tools.Result) []llm.Content {
	d.Guards.Mistake() // counted once, as a mistake, not also as a repetition
	if header == "" {
		header = "[unknown tool] Result:"
	} else if !strings.HasPrefix(header, "[") {
		header = "[" + header + "] Result:"
	}
	return content(ctx, d, header, tools.Result{Text: prompt.ToolError(res.Text)})
}

// content builds the next user turn from a result: the `[tool for 'arg'] Result:` header,
// the text, images, and the user's feedback, whose mentions are expanded within ctx (an @url
// in it is fetched, and stops with the task).
func content(ctx context.Context, d Deps, header string, res tools.Result) []llm.Content {
	text := res.Text
	if res.Rejected && strings.TrimSpace(text) == "" {
		text = prompt.ToolDenied()
	}
	out := []llm.Content{llm.Text(header + "\n" + text)}
	for _, img := range res.Images {
		out = append(out, llm.Content{Type: llm.ContentImage, ImageMediaType: img.MediaType,
			ImageData: base64.StdEncoding.EncodeToString(img.Data)})
	}
	if res.UserFeedback != "" {
		out = append(out, d.Task.Feedback(ctx, res.UserFeedback))
	}
	return out
}

// ResultText is the text the model receives for a tool result (without images): the header,
// the result or the wrapped error, and the user's feedback. `cairn tool` prints exactly this.
func ResultText(spec tools.Spec, call tools.Call, res tools.Result) string {
	text := res.Text
	switch {
	case res.Rejected && strings.TrimSpace(text) == "":
		text = prompt.ToolDenied()
	case res.IsError && !res.Rejected:
		text = prompt.ToolError(text)
	}
	out := resultHeader(spec, call) + "\n" + text
	if res.UserFeedback != "" {
		out += "\n<feedback>\n" + res.UserFeedback + "\n</feedback>"
	}
	return out
}

// resultHeader is `[name for 'arg'] Result:` (or `[name] Result:` for tools without an argument).
func resultHeader(spec tools.Spec, call tools.Call) string {
	if spec.ArgParam == "" {
		return "[" + spec.Name + "] Result:"
	}
	return "[" + spec.Name + " for '" + call.Params[spec.ArgParam] + "'] Result:"
}

// answerTags are the tags in which interaction tools return what the user typed.
var answerTags = []string{"answer", "feedback"}

// expandAnswers expands mentions and slash commands (/smol, /compact…) in the user's words
// inside an interaction tool's result, as for any other user text: an answer to a followup
// question or feedback on a completion can ask to condense.
// expand is the task's (Task.ExpandUser).
func expandAnswers(ctx context.Context, expand func(context.Context, string) string, text string) string {
	for _, tag := range answerTags {
		openTag, closeTag := "<"+tag+">\n", "\n</"+tag+">"
		i := strings.Index(text, openTag)
		if i < 0 {
			continue
		}
		j := strings.LastIndex(text, closeTag)
		if j < i+len(openTag) {
			continue
		}
		text = text[:i+len(openTag)] + expand(ctx, text[i+len(openTag):j]) + text[j:]
	}
	return text
}
