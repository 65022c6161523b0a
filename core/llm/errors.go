package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Sentinel errors; callers test them with errors.Is. An *APIError matches the sentinel of its
// HTTP status (see APIError.Is).
var (
	// ErrIdleTimeout reports that the model sent nothing for longer than the idle timeout. The
	// wrapped message says how long; the task layer treats it like any failed request.
	ErrIdleTimeout = errors.New("model idle timeout")
	// ErrBadRequest is HTTP 400 other than a context-window error.
	ErrBadRequest = errors.New("bad request")
	// ErrInvalidAPIKey is HTTP 401.
	ErrInvalidAPIKey = errors.New("invalid API key")
	// ErrForbidden is HTTP 403.
	ErrForbidden = errors.New("forbidden")
	// ErrNotFound is HTTP 404: an unknown model or a wrong base URL.
	ErrNotFound = errors.New("model or URL not found")
)

// APIError is an error response from the model endpoint, in a provider-neutral shape.
type APIError struct {
	// Status is the HTTP status, or 0 when the error came inside an open stream without one.
	Status int
	// RetryAfter is what the server asked us to wait (Retry-After and friends), 0 if nothing.
	RetryAfter time.Duration
	Message    string
	// ContextWindowExceeded marks a request too large for the model; the task layer truncates
	// and retries instead of asking the user.
	ContextWindowExceeded bool
	// Err is the adapter's original error, kept for errors.As by callers that care.
	Err error
}

func (e *APIError) Error() string {
	if e.Status == 0 {
		return "model API error: " + e.Message
	}
	if c := e.cause(); c != nil {
		return fmt.Sprintf("model API error (HTTP %d): %s: %s", e.Status, c.hint, e.Message)
	}
	return fmt.Sprintf("model API error (HTTP %d): %s", e.Status, e.Message)
}

func (e *APIError) Unwrap() error { return e.Err }

// Is matches the sentinel of the error's HTTP status (ErrBadRequest, ErrInvalidAPIKey,
// ErrForbidden, ErrNotFound), so callers need not know status codes.
func (e *APIError) Is(target error) bool {
	c := e.cause()
	return c != nil && c.sentinel == target
}

// statusCause names a request error that sending the same request again cannot fix.
type statusCause struct {
	sentinel error
	hint     string // what the user should check, leading the error text
}

// permanentCause returns, for the client errors a retry cannot fix, what went wrong: the
// request, the key or the address is wrong, and only the user can change that.
func permanentCause(status int) (statusCause, bool) {
	switch status {
	case http.StatusBadRequest:
		return statusCause{ErrBadRequest, "bad request (the provider rejected the request; check the model name and its settings)"}, true
	case http.StatusUnauthorized:
		return statusCause{ErrInvalidAPIKey, "invalid API key (check the key in the settings)"}, true
	case http.StatusForbidden:
		return statusCause{ErrForbidden, "forbidden (the key may not use this model or endpoint)"}, true
	case http.StatusNotFound:
		return statusCause{ErrNotFound, "model or URL not found (check the model name and the base URL)"}, true
	}
	return statusCause{}, false
}

func (e *APIError) cause() *statusCause {
	if e.ContextWindowExceeded {
		return nil // a 400 the task layer handles by truncating, not the user's mistake
	}
	if c, ok := permanentCause(e.Status); ok {
		return &c
	}
	return nil
}

// IsPermanent reports whether err is a request error that no retry can fix (HTTP 400, 401,
// 403, 404 other than a context-window error): a retry only delays the message the user needs.
// A provider's own error type joins them with a Permanent method that returns true (the
// editor's models: a refused permission or a model that is gone, core/llm/vscodelm).
func IsPermanent(err error) bool {
	var ae *APIError
	if errors.As(err, &ae) && ae.cause() != nil {
		return true
	}
	var p interface{ Permanent() bool }
	return errors.As(err, &p) && p.Permanent()
}

// IsContextWindow reports whether err says the request did not fit the model's context window.
func IsContextWindow(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.ContextWindowExceeded
}

// IsRetryable reports whether the provider layer should try the same request again: rate
// limits, server errors and transport failures. Cancellation, idle timeouts (the task layer
// owns those: another 120 s wait is not a quick retry), client errors (IsPermanent) and
// context-window errors are not.
func IsRetryable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, ErrIdleTimeout) {
		return false
	}
	var ae *APIError
	if errors.As(err, &ae) {
		if ae.ContextWindowExceeded {
			return false
		}
		switch {
		case ae.Status == http.StatusTooManyRequests, ae.Status == http.StatusRequestTimeout,
			ae.Status == http.StatusConflict, ae.Status >= 500:
			return true
		}
		return false
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE)
}

// contextWindowPhrases are what providers put in a 400 when the prompt is too long (OpenAI,
// OpenRouter, DeepSeek, Groq, vLLM, Ollama and Cerebras variants). Matched lower-case.
var contextWindowPhrases = []string{
	"context_length_exceeded",
	"context length",
	"context window",
	"maximum context",
	"too many tokens",
	"tokens exceed",
	"prompt is too long",
	"reduce the length of the messages",
	"input is too long",
}

// LooksLikeContextWindow reports whether an error status and message mean the prompt did not
// fit. Adapters call it when building an APIError.
func LooksLikeContextWindow(status int, message string) bool {
	if status != 0 && status != http.StatusBadRequest && status != http.StatusRequestEntityTooLarge {
		return false
	}
	m := strings.ToLower(message)
	for _, p := range contextWindowPhrases {
		if strings.Contains(m, p) {
			return true
		}
	}
	return false
}

// ParseRetryAfter reads how long a response asks us to wait: retry-after-ms, Retry-After
// (delta seconds or an HTTP date) and the rate-limit reset headers (delta seconds or a Unix
// time). It returns 0 when there is nothing usable. now is injectable for tests.
func ParseRetryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	if v := h.Get("Retry-After"); v != "" {
		if s, err := strconv.ParseFloat(v, 64); err == nil && s > 0 {
			return time.Duration(s * float64(time.Second))
		}
		if t, err := http.ParseTime(v); err == nil && t.After(now) {
			return t.Sub(now)
		}
	}
	for _, k := range []string{"X-Ratelimit-Reset", "Ratelimit-Reset"} {
		v := h.Get(k)
		s, err := strconv.ParseFloat(v, 64)
		if err != nil || s <= 0 {
			continue
		}
		// Values this large are a Unix time, not a delta.
		if s > 1e9 {
			if d := time.Unix(int64(s), 0).Sub(now); d > 0 {
				return d
			}
			continue
		}
		return time.Duration(s * float64(time.Second))
	}
	return 0
}
