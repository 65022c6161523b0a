package task

import (
	"sort"
	"strings"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/parse"
	"github.com/cairnhq/cairn/core/prompt"
)

// reply is one model response, settled.
type reply struct {
	// text is the assistant message recorded in the API history.
	text string
	// tool is the first tool call, complete: its closing tag arrived. Only such a call runs.
	tool *parse.Block
	// cut is a first tool call the reply ended inside (the output limit, or a reply that ended
	// without the closing tag). It never runs, and no approval is asked for it.
	cut *parse.Block
	// finish is the provider's finish reason ("" when it sent none).
	finish string
	// extraTools says tool calls followed the first one; they are never run.
	extraTools bool
	// native is set when the model called tools natively; calls are then its calls, recorded
	// on the assistant message (empty when the first one was cut off).
	native bool
	calls  []llm.ToolCall
}

// replyOf settles the blocks of a stream that ended without error. toolDone says the first
// tool call's closing tag arrived; moreTools that another tool call began after it.
func replyOf(blocks []parse.Block, toolDone, moreTools bool, finish string) reply {
	r := reply{finish: finish, extraTools: moreTools}
	for i := range blocks {
		if blocks[i].Type != parse.ToolUse {
			continue
		}
		if r.tool != nil || r.cut != nil {
			r.extraTools = true
			continue
		}
		b := blocks[i]
		if toolDone && !b.Partial {
			r.tool = &b
		} else {
			r.cut = &b
		}
	}
	if r.cut != nil {
		r.text = serialize(elideLong(blocks), false)
	} else {
		r.text = serialize(blocks, true)
	}
	return r
}

// cutOffParamLimit is how much of a long parameter of an unfinished call stays in the
// history: enough to show the model where it was, without paying for the rest again on
// every later request.
const cutOffParamLimit = 400

// elideLong shortens the long parameters of an unfinished tool call.
func elideLong(blocks []parse.Block) []parse.Block {
	out := make([]parse.Block, len(blocks))
	for i, b := range blocks {
		out[i] = b
		if b.Type != parse.ToolUse || !b.Partial {
			continue
		}
		params := make(map[string]string, len(b.Params))
		for k, v := range b.Params {
			if len(v) > cutOffParamLimit {
				v = strings.ToValidUTF8(v[:cutOffParamLimit], "") + "\n" + prompt.ElidedParam(len(v))
			}
			params[k] = v
		}
		out[i].Params = params
	}
	return out
}

// limitHit reports whether the reply ended at the model's output-token limit.
func (r reply) limitHit() bool { return r.finish == llm.FinishLength }

// cutOffNote is the next user turn after a reply that ended early.
func (r reply) cutOffNote() string {
	name := ""
	if r.cut != nil {
		name = r.cut.Name
	}
	return prompt.CutOff(name, r.limitHit())
}

// cutOffRow is the chat row shown when an unfinished tool call was dropped.
func cutOffRow(r reply) string {
	if r.limitHit() {
		return "The reply was cut off at the model's output limit, so its unfinished " + r.cut.Name +
			" call was not run. Cairn asked the model for smaller steps."
	}
	return "The reply ended before its " + r.cut.Name + " call was complete, so the call was not run."
}

// serialize rebuilds the assistant message from parsed blocks: text, then at most one tool call
// in canonical XML. Later tool calls were never run, so they are not recorded.
func serialize(blocks []parse.Block, complete bool) string {
	var b strings.Builder
	for _, bl := range blocks {
		if bl.Type == parse.Text {
			if b.Len() > 0 {
				b.WriteString("\n\n")
			}
			b.WriteString(bl.Content)
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString("<" + bl.Name + ">\n")
		for _, k := range sortedKeys(bl.Params) {
			b.WriteString("<" + k + ">" + bl.Params[k] + "</" + k + ">\n")
		}
		if complete || !bl.Partial {
			b.WriteString("</" + bl.Name + ">")
		}
		break
	}
	return b.String()
}

// sortedKeys is the keys of m, sorted.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
