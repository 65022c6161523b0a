package task

import (
	"strings"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/task/conversation"
)

// The user's own words and images, as the model receives them.

// feedbackOpen starts every block that carries the user's own words to the model.
const feedbackOpen = conversation.FeedbackOpen

// imageContents turns the data URLs of the user's images into content for the model; a URL
// that is not a data URL is left out.
func imageContents(dataURLs []string) []llm.Content {
	var out []llm.Content
	for _, u := range dataURLs {
		mediaType, data, ok := parseDataURL(u)
		if ok {
			out = append(out, llm.Content{Type: llm.ContentImage, ImageMediaType: mediaType, ImageData: data})
		}
	}
	return out
}

func parseDataURL(u string) (string, string, bool) {
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		return "", "", false
	}
	meta, data, ok := strings.Cut(rest, ",")
	if !ok {
		return "", "", false
	}
	mediaType, isB64 := strings.CutSuffix(meta, ";base64")
	if !isB64 {
		return "", "", false
	}
	return mediaType, data, true
}
