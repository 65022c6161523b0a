// Package task is the agent: a Task is one conversation in one workspace, driven by the
// recursive request loop of spec §2.1 — build the prompt, stream the model's answer, parse it
// incrementally, run the first tool call after approval, feed the result back — with its UI
// message list, its events for subscribers and its persistence. A Manager runs several tasks,
// each on its own context.
package task
