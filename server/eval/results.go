package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"sync"
)

// Result is one exercise's line in the results file (README "Benchmark").
type Result struct {
	Language string `json:"language"`
	Exercise string `json:"exercise"`
	Passed   bool   `json:"passed"`
	// PassedOnTry is the try whose tests passed (1-based), nil when none did.
	PassedOnTry *int `json:"passed_on_try"`
	// Tries is how many tries ran (each one ends with a test run).
	Tries            int     `json:"tries"`
	PromptTokens     int64   `json:"prompt_tokens"`
	CompletionTokens int64   `json:"completion_tokens"`
	CostUSD          float64 `json:"cost_usd"`
	// PriceUnknown is set when the model's prices are unknown: cost_usd is then no figure
	// (README, "One cost truth").
	PriceUnknown bool    `json:"price_unknown,omitempty"`
	Seconds      float64 `json:"seconds"`
	// The run's health, as Aider reports it beside its pass rates (README, "Benchmark"):
	// Replies is how many model replies the exercise took; MalformedReplies how many of them
	// the loop could not use (an edit that did not apply, a reply without a usable tool call);
	// Timeouts how many model requests failed or timed out and were tried again;
	// ContextExhausted how many times the history had to be cut to fit the context window;
	// TestTimeouts how many test runs were stopped at --test-timeout.
	Replies          int `json:"replies"`
	MalformedReplies int `json:"malformed_replies"`
	Timeouts         int `json:"timeouts"`
	ContextExhausted int `json:"context_exhausted"`
	TestTimeouts     int `json:"test_timeouts"`
	// Error is why the exercise could not run to its end ("" when it did): the model's
	// endpoint failed, a limit stopped the task, the tests could not be started.
	Error string `json:"error"`
}

// Key is LANG/NAME, as Exercise.Key.
func (r Result) Key() string { return r.Language + "/" + r.Exercise }

// ReadResults reads a results file. A last line cut short (the harness was killed while
// writing it) is left out and reported by cut, the length of the file up to it, so that
// OpenResults can drop it; a bad line elsewhere is an error.
func ReadResults(path string) (results []Result, cut int64, err error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, -1, nil
	}
	if err != nil {
		return nil, -1, err
	}
	cut = -1
	if n := len(b); n > 0 && b[n-1] != '\n' {
		cut = int64(bytes.LastIndexByte(b, '\n') + 1)
		b = b[:cut]
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var r Result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, -1, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		results = append(results, r)
	}
	return results, cut, sc.Err()
}

// Results appends result lines to a file, one whole line per write, synced, so that a run
// stopped at any moment leaves a file every line of which is a finished exercise.
type Results struct {
	mu sync.Mutex
	f  *os.File
}

// OpenResults opens path for appending. Without resume the file must be new or empty: one
// that holds results is ErrResultsExist, and is left as it is. With resume, a last line cut
// short is removed first (logged).
func OpenResults(path string, resume bool, log *slog.Logger) (*Results, []Result, error) {
	var done []Result
	flags := os.O_CREATE | os.O_WRONLY | os.O_APPEND
	if !resume {
		switch st, err := os.Stat(path); {
		case err == nil && st.Size() > 0:
			return nil, nil, fmt.Errorf("%s: %w", path, ErrResultsExist)
		case err != nil && !os.IsNotExist(err):
			return nil, nil, err
		}
	}
	if resume {
		var cut int64
		var err error
		done, cut, err = ReadResults(path)
		if err != nil {
			return nil, nil, err
		}
		if cut >= 0 {
			log.Warn("eval: dropping a results line cut short", "file", path, "at", cut)
			if err := os.Truncate(path, cut); err != nil {
				return nil, nil, err
			}
		}
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		return nil, nil, err
	}
	return &Results{f: f}, done, nil
}

// Add writes r as one line.
func (w *Results) Add(r Result) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := w.f.Write(append(b, '\n')); err != nil {
		return err
	}
	return w.f.Sync()
}

// Close closes the file.
func (w *Results) Close() error { return w.f.Close() }
