package agent

import "errors"

// errNoAccount is a bug: a task always gives its tools an account to charge.
var errNoAccount = errors.New("agent: subagents need the parent's account")
