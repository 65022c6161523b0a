// Command fakellm is the fake model for TypeScript and E2E tests: an OpenAI-compatible
// streaming endpoint playing a JSON script (see core/llm/llmtest). It prints one JSON line,
// {"base_url": "http://127.0.0.1:PORT/v1"}, once it accepts connections; GET /_requests
// returns the request log and POST /_script replaces the script.
//
//	fakellm --script script.json [--addr 127.0.0.1:0]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/cairnhq/cairn/core/llm/llmtest"
)

func main() {
	scriptPath := flag.String("script", "", "JSON script to play (empty: only the end-of-script turn)")
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	flag.Parse()
	if err := run(*scriptPath, *addr); err != nil {
		fmt.Fprintln(os.Stderr, "fakellm:", err)
		os.Exit(1)
	}
}

func run(scriptPath, addr string) error {
	var script llmtest.Script
	if scriptPath != "" {
		f, err := os.Open(scriptPath)
		if err != nil {
			return err
		}
		script, err = llmtest.LoadScript(f)
		_ = f.Close() // opened read-only: a failed close loses nothing
		if err != nil {
			return err
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return llmtest.ServeFake(ctx, addr, script, func(baseURL string) {
		_ = json.NewEncoder(os.Stdout).Encode(map[string]string{"base_url": baseURL})
	})
}
