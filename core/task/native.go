package task

import (
	"encoding/json"
	"strings"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/parse"
	"github.com/cairnhq/cairn/core/prompt"
)

// Native tool calling. The model's calls arrive as structured deltas rather than XML in the
// text; replyReader gives the loop the same parsed blocks either way, so the presenter, the
// previews (the diff view filling in as write_to_file's content streams) and runTool work
// unchanged. The differences are in what is recorded: the assistant message keeps its calls,
// and the next user turn answers each call by id (the first with its result, any other with
// a note that it was not run).

// replyReader turns a stream's chunks into the parser's blocks.
type replyReader interface {
	Feed(c llm.Chunk)
	// Blocks are the blocks so far, the last one possibly partial.
	Blocks() []parse.Block
	// ToolDone reports that the first tool call is complete.
	ToolDone() bool
	// MoreTools reports that another tool call began after the first.
	MoreTools() bool
	// End settles the blocks once the stream is over.
	End() []parse.Block
}

// xmlReader reads tool calls written as XML in the text.
type xmlReader struct{ p *parse.Parser }

func (r xmlReader) Feed(c llm.Chunk)      { r.p.Feed(c.Text) }
func (r xmlReader) Blocks() []parse.Block { return r.p.Blocks() }
func (r xmlReader) ToolDone() bool        { return r.p.ToolDone() }
func (r xmlReader) MoreTools() bool       { return r.p.MoreTools() }
func (r xmlReader) End() []parse.Block    { return r.p.End() }

// nativeReader reads native tool calls: the text is one block, the first call another, its
// parameters read from the arguments JSON as far as it has streamed.
type nativeReader struct {
	text  strings.Builder
	calls llm.ToolCalls
	// params and done are the first call's arguments as last read (parse.Args), refreshed
	// when its arguments grow.
	params  map[string]string
	done    bool
	argsLen int
	ended   bool
}

func (r *nativeReader) Feed(c llm.Chunk) {
	r.text.WriteString(c.Text)
	for _, d := range c.ToolCalls {
		r.calls.Add(d)
	}
	if r.calls.Len() > 0 {
		if args := r.calls.Calls()[0].Arguments; len(args) != r.argsLen || r.params == nil {
			r.params, r.done = parse.Args(args)
			r.argsLen = len(args)
		}
	}
}

func (r *nativeReader) Blocks() []parse.Block {
	var out []parse.Block
	if r.text.Len() > 0 {
		out = append(out, parse.Block{Type: parse.Text, Content: r.text.String(), Partial: !r.ended && r.calls.Len() == 0})
	}
	if r.calls.Len() > 0 {
		first := r.calls.Calls()[0]
		out = append(out, parse.Block{Type: parse.ToolUse, Name: first.Name, Params: r.params, Partial: !r.complete()})
	}
	return out
}

// complete reports that the first call's arguments are a whole JSON object.
func (r *nativeReader) complete() bool {
	return r.calls.Len() > 0 && r.done && json.Valid([]byte(r.calls.Calls()[0].Arguments))
}

func (r *nativeReader) ToolDone() bool  { return r.complete() }
func (r *nativeReader) MoreTools() bool { return r.calls.Len() > 1 }

func (r *nativeReader) End() []parse.Block {
	r.ended = true
	return r.Blocks()
}

// nativeReply settles a native stream that ended without error. Only a complete first call
// runs; the calls are recorded as they came, with the first one's id kept to answer it. A cut
// first call is not recorded as a call at all (it never ran and will have no result): a note
// in the text says where it was.
func (r *nativeReader) reply(finish string) reply {
	rep := reply{finish: finish, native: true, text: r.text.String()}
	calls := r.calls.Calls()
	if len(calls) == 0 {
		return rep
	}
	first := calls[0]
	b := parse.Block{Type: parse.ToolUse, Name: first.Name, Params: r.params}
	if !r.complete() {
		b.Partial = true
		rep.cut = &b
		rep.text = joinText(rep.text, prompt.CutCall(first.Name))
		return rep
	}
	rep.tool = &b
	rep.calls = append([]llm.ToolCall(nil), calls...)
	rep.extraTools = len(calls) > 1
	return rep
}

// interruptedText is what is recorded of a native reply the user interrupted: its text; the
// call, if any, never ran.
func (r *nativeReader) interruptedText() string {
	return joinText(r.text.String(), prompt.Interrupted())
}

func joinText(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n\n" + b
}

// assistantMessage is the history record of a reply.
func (r reply) assistantMessage() llm.Message {
	m := llm.Message{Role: llm.RoleAssistant, ToolCalls: r.calls}
	if !r.native || r.text != "" {
		m.Content = []llm.Content{llm.Text(r.text)}
	}
	return m
}

// answerCalls turns the next user turn built for the call that ran into its native form: the
// result text (the turn's first block) answers the call by id, and every further call gets a
// result saying it was not run.
func (r reply) answerCalls(content []llm.Content) []llm.Content {
	if !r.native || len(r.calls) == 0 {
		if r.extraTools {
			content = append(content, llm.Text(prompt.MultipleToolsNote()))
		}
		return content
	}
	out := make([]llm.Content, 0, len(content)+len(r.calls))
	rest := content
	if len(rest) > 0 && rest[0].Type == llm.ContentText {
		out = append(out, llm.ToolResult(r.calls[0].ID, rest[0].Text))
		rest = rest[1:]
	} else {
		out = append(out, llm.ToolResult(r.calls[0].ID, prompt.NoResult()))
	}
	for _, c := range r.calls[1:] {
		out = append(out, llm.ToolResult(c.ID, prompt.NotRun()))
	}
	return append(out, rest...)
}
