package openai

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/cairnhq/cairn/core/llm"
)

var (
	// ErrBadRequest is a request this adapter cannot express (unknown role, empty image).
	ErrBadRequest = errors.New("openai: bad request")
	// ErrMalformedEvent is a stream event that is not valid JSON.
	ErrMalformedEvent = errors.New("openai: malformed stream event")
	// ErrTruncated is a stream that ended without a finish reason: the connection closed
	// cleanly in mid-answer (a proxy timeout, a dying server). It wraps io.ErrUnexpectedEOF
	// so it is retryable like any cut.
	ErrTruncated error = truncated{}
)

// truncated is ErrTruncated, a type of its own rather than fmt.Errorf's so that the variable is
// laid out by the compiler instead of built at start (core/lazy).
type truncated struct{}

func (truncated) Error() string {
	return "stream ended without a finish reason: " + io.ErrUnexpectedEOF.Error()
}

func (truncated) Unwrap() error { return io.ErrUnexpectedEOF }

// mapError turns go-openai's errors into *llm.APIError so the retry and context-window logic
// stays vendor-neutral; h holds the failing response's headers when there was one.
func mapError(err error, h http.Header) error {
	var retryAfter time.Duration
	if h != nil {
		retryAfter = llm.ParseRetryAfter(h, time.Now())
	}
	var ae *goopenai.APIError
	if errors.As(err, &ae) {
		status := ae.HTTPStatusCode
		if code, ok := ae.Code.(int); ok && status == 0 && code >= 400 && code < 600 {
			status = code // an error event inside the stream, where some gateways put the status
		}
		msg := ae.Message
		if c, ok := ae.Code.(string); ok && c != "" {
			msg = c + ": " + msg
		}
		return &llm.APIError{Status: status, RetryAfter: retryAfter, Message: msg,
			ContextWindowExceeded: llm.LooksLikeContextWindow(status, msg), Err: err}
	}
	var re *goopenai.RequestError
	if errors.As(err, &re) {
		msg := string(re.Body)
		if len(msg) > 500 {
			msg = msg[:500] + "…"
		}
		if msg == "" {
			msg = http.StatusText(re.HTTPStatusCode)
		}
		return &llm.APIError{Status: re.HTTPStatusCode, RetryAfter: retryAfter, Message: msg,
			ContextWindowExceeded: llm.LooksLikeContextWindow(re.HTTPStatusCode, msg), Err: err}
	}
	return fmt.Errorf("openai: %w", err)
}
