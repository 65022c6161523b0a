// Package task is the agent: a Task is one conversation in one workspace, driven by the recursive
// request loop (docs/architecture.md, "One message, end to end") — build the prompt, stream the
// model's answer, parse it incrementally, run the first tool call after approval, feed the result
// back — with its UI message list, its events for subscribers and its persistence. A Manager runs
// several tasks, each on its own context.
package task
