// Package lsp runs the workspace's language servers in the daemon, for the tasks that have no
// editor to report problems (cairn run, cairn acp, cairn eval; README, "Language servers"):
// one server per workspace root and language, started on the first edit of a file of that
// language or when a task starts in a folder of it, confined to the command sandbox's
// workspace tier with the network off, stopped when idle and when the daemon stops. After an
// edit, the edit tools ask it for the file's diagnostics, which it gives within a bounded wait;
// a server that crashed, hangs or is missing makes that answer an error, never a wait without
// end. The same servers answer code navigation (references and definitions).
//
// The JSON-RPC framing and the protocol's types are go.lsp.dev's (jsonrpc2, protocol); this
// package holds the lifecycle, the documents' sync and the waits.
package lsp
