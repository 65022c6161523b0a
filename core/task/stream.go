package task

import (
	"errors"
	"io"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/parse"
	"github.com/cairnhq/cairn/core/prompt"
)

// The stream reader: one model stream read to its end and settled into a result, with no
// task around it. The loop (attempt, loop.go) shows what arrives through the reader's
// callbacks and decides what the result means (docs/task-runtime.md).

// errEmptyResponse is the failure of a stream that ended without text or tool calls.
var errEmptyResponse = errors.New("the model returned an empty response")

// streamResult is what one model stream said.
type streamResult struct {
	// blocks are the settled blocks: the text and the tool calls, the last maybe unfinished.
	blocks []parse.Block
	// reply is the response settled for the history and the loop (meaningful when err is nil
	// and the request was not cancelled).
	reply reply
	// interrupted is the assistant message recorded when the user cancelled the request.
	interrupted string
	// finish is the provider's finish reason ("" when it sent none).
	finish string
	// usage is the provider's report; gotUsage says one came.
	usage    llm.Usage
	gotUsage bool
	// received says text or tool calls arrived (reasoning alone does not count).
	received bool
	// reasoning is the model's reasoning, whole.
	reasoning string
	// err is the error that broke the stream before the tool call was complete; an error
	// while only draining the rest is not a failure.
	err error
}

// failure is the error that makes the request fail: a broken stream, or an empty response.
func (r streamResult) failure() error {
	if r.err == nil && !r.received {
		return errEmptyResponse
	}
	return r.err
}

// streamReader reads one model stream: the text and XML tool calls (xmlReader) or native tool
// calls (nativeReader). Only one tool call runs per message: once the first is complete the
// rest of the stream is only drained, for its usage report and to learn whether more calls
// followed.
type streamReader struct {
	parser replyReader
	native *nativeReader // the parser when the model calls tools natively, else nil

	// onReasoning gets the whole reasoning so far each time it grows; onBlocks the blocks so
	// far each time text or tool calls arrive, until the tool call is complete; onToolDone is
	// called once, when it is (the caller bounds the drain). Each may be nil.
	onReasoning func(all string)
	onBlocks    func(blocks []parse.Block)
	onToolDone  func()
}

// newStreamReader reads native tool calls when native is set, else XML ones in grammar g.
func newStreamReader(native bool, g parse.Grammar) *streamReader {
	if native {
		nr := &nativeReader{}
		return &streamReader{parser: nr, native: nr}
	}
	return &streamReader{parser: xmlReader{parse.New(g)}}
}

// read reads s to its end (or its first error) and settles what it said. It does not close s.
func (r *streamReader) read(s llm.Stream) streamResult {
	var res streamResult
	draining := false
	for {
		chunk, err := s.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			if !draining {
				res.err = err
			}
			break
		}
		if chunk.Usage != nil {
			res.usage, res.gotUsage = *chunk.Usage, true
		}
		if chunk.FinishReason != "" {
			res.finish = chunk.FinishReason
		}
		if draining {
			// Read on only to learn whether more tool calls followed (the model is told they
			// were not run); nothing more is shown.
			r.parser.Feed(chunk)
			continue
		}
		if chunk.Reasoning != "" {
			if r.onReasoning != nil {
				r.onReasoning(res.reasoning + chunk.Reasoning)
			}
			res.reasoning += chunk.Reasoning
		}
		if chunk.Text == "" && len(chunk.ToolCalls) == 0 {
			continue
		}
		res.received = true
		r.parser.Feed(chunk)
		if r.onBlocks != nil {
			r.onBlocks(r.parser.Blocks())
		}
		if r.parser.ToolDone() {
			draining = true
			if r.onToolDone != nil {
				r.onToolDone()
			}
		}
	}
	r.settle(&res)
	return res
}

// settle ends the parse and fills in the blocks, the reply and the interrupted text.
func (r *streamReader) settle(res *streamResult) {
	toolDone := r.parser.ToolDone()
	res.blocks = r.parser.End()
	if r.native != nil {
		res.reply = r.native.reply(res.finish)
		res.interrupted = r.native.interruptedText()
		return
	}
	res.reply = replyOf(res.blocks, toolDone, r.parser.MoreTools(), res.finish)
	res.interrupted = serialize(res.blocks, false) + "\n\n" + prompt.Interrupted()
}

// estimateUsage counts tokens offline when the provider reported no usage.
func estimateUsage(system string, history []llm.Message, blocks []parse.Block) llm.Usage {
	in := llm.CountTokens(system)
	for _, m := range history {
		for _, c := range m.Content {
			in += llm.CountTokens(c.Text)
		}
		for _, tc := range m.ToolCalls {
			in += llm.CountTokens(tc.Arguments)
		}
	}
	return llm.Usage{InputTokens: int64(in), OutputTokens: int64(llm.CountTokens(serialize(blocks, true)))}
}
