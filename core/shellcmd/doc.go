// Package shellcmd reads a command line the way a shell would before Cairn decides whether it may
// run on its own (README, "Security"). It parses the line with mvdan.cc/sh into simple commands,
// sees through wrappers (env, timeout, sudo, xargs, …), the scripts handed to `bash -c`, `eval` and
// here-documents, command substitutions and pipelines, and records redirections.
//
// On that structure it answers three questions: does any part match the deny list (in any
// flag spelling), is every part read-only by Cairn's own classification, and does every part
// match the user's allow list. It also lists the files that simple reading commands would
// print, so the ignore file can be applied to commands as it is to read_file, and the files
// that common writing commands create, change or remove, so writes to protected files
// (core/protect) are always asked.
//
// The read-only classification is an allowlist of syntax: a line is read-only only when every
// word is literal after quote removal (no parameter, arithmetic, command or process
// substitution, no brace expansion, no ~user, ~+ or ~-) and it holds no [[ ]], (( )),
// arithmetic for or let (literal.go).
//
// The analysis is static and deliberately pessimistic: whatever it cannot see (a command name
// computed at run time, a script downloaded and piped into a shell, a word only known at run
// time that can hold a command or an option: brace expansion, arithmetic that reads a variable,
// ${!x}, ${x@P}) is reported as opaque, and callers treat opaque like a deny-list hit. A plain
// parameter expansion ($x, "${x:-y}") is not opaque by itself: its value is only text, and
// where it stands for a command name or a denied program's options the deny list counts it as
// any name or option. It never runs anything.
package shellcmd
