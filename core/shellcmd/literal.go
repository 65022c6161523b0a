package shellcmd

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/cairnhq/cairn/core/lazy"
)

// The read-only classification is an allowlist of syntax (README, "Safe commands are Cairn's
// call"): a line is read-only only when every word is literal after quote removal. This file
// finds what is not:
//
//   - a parameter, arithmetic, command or process substitution, and brace expansion (an
//     unquoted {a,b} or {1..3}, also when a member is quoted: {"-r",x});
//   - a tilde that names another folder than the home folder (~user, ~+, ~-);
//   - the bash constructs that evaluate text as code: [[ ]], (( )), for ((…)) and let.
//
// Each is noted in Script.nonLiteral, which only ReadOnly reads. Those that can hold a command
// or an option the deny list cannot see are also opaque (Script.Opaque), so they count as a
// deny-list hit (README, "Deny list"):
//
//   - brace expansion: one word becomes an option or several words ({"--compress-program=sh",-}
//     for sort, {"-r",victim} for rm, {".git/hooks/pre-commit",} for tee);
//   - arithmetic that reads a variable ($((x)), (( x )), for ((…)), let, ${a[i]}, ${s:i},
//     a[i]=…, declare -i, [[ x -eq 0 ]]): bash evaluates the variable's value as arithmetic
//     again, and `a[$(cmd)]` in it runs cmd;
//   - ${!x} and ${x@P}: indirection evaluates a name that may hold such a subscript, and
//     prompt expansion runs the command substitutions in the value;
//   - a name with a subscript given to a builtin that evaluates it (test -v 'a[$(cmd)]',
//     unset, read, printf -v, declare -n, …).
//
// A plain parameter expansion ($x, "${x}", ${x:-default}, ${#x}, ${x%.go}) is not a hit: its
// value is split into words and globbed but never run. Where it stands for a command name or
// for the options of a program on the deny list, the deny list already counts it as any name
// or any option (see Denied); as an argument to echo it is only text.

// hiddenReason is the message for a construct that can hold a command or an option.
func hiddenReason(what, shown string) string {
	return "a word that is only known when the line runs (" + what + ") can hold a command or an option: " + shown
}

// literal notes what in node n is not literal (see above). text is the source the node was
// parsed from; hdocs are the here-document bodies, which the shell neither brace- nor
// tilde-expands.
func (w *walker) literal(text string, hdocs map[*syntax.Word]bool, n syntax.Node) {
	shown := func(n syntax.Node) string {
		from, to := int(n.Pos().Offset()), int(n.End().Offset())
		if from < 0 || to > len(text) || from >= to {
			return ""
		}
		return text[from:to]
	}
	notLiteral := func(what string, n syntax.Node) {
		w.s.nonLiteral = append(w.s.nonLiteral, what+": "+shown(n))
	}
	hidden := func(what string, n syntax.Node) {
		notLiteral(what, n)
		w.s.Opaque = append(w.s.Opaque, hiddenReason(what, shown(n)))
	}
	switch n := n.(type) {
	case *syntax.Word:
		if hdocs[n] {
			return
		}
		if hasBraceExp(n) {
			hidden("brace expansion", n)
		}
		if tildeElsewhere(n) {
			notLiteral("a tilde for another folder", n)
		}
	case *syntax.ParamExp:
		if what, ok := paramEvaluates(n); ok {
			hidden(what, n)
			return
		}
		notLiteral("parameter expansion", n)
	case *syntax.ArithmExp:
		if arithReads(n.X) {
			hidden("arithmetic on a variable's value", n)
			return
		}
		notLiteral("arithmetic expansion", n)
	case *syntax.ArithmCmd:
		if arithReads(n.X) {
			hidden("arithmetic on a variable's value", n)
			return
		}
		notLiteral("an arithmetic command", n)
	case *syntax.CStyleLoop:
		if arithReads(n.Init) || arithReads(n.Cond) || arithReads(n.Post) {
			hidden("arithmetic on a variable's value", n)
			return
		}
		notLiteral("an arithmetic for loop", n)
	case *syntax.LetClause:
		for _, x := range n.Exprs {
			if arithReads(x) {
				hidden("arithmetic on a variable's value", n)
				return
			}
		}
		notLiteral("let", n)
	case *syntax.TestClause:
		if testEvaluates(n.X) {
			hidden("a test that evaluates a variable's value", n)
			return
		}
		notLiteral("a [[ ]] test", n)
	case *syntax.Assign:
		if n.Index != nil && arithReads(n.Index) {
			hidden("an array subscript evaluated as arithmetic", n)
		}
	case *syntax.ArrayElem:
		if n.Index != nil && arithReads(n.Index) {
			hidden("an array subscript evaluated as arithmetic", n)
		}
	case *syntax.DeclClause:
		for _, a := range n.Args {
			flag := a.Naked && a.Value != nil && declEvaluates(a.Value.Lit())
			if flag && n.Variant.Value != "export" && n.Variant.Value != "readonly" || n.Variant.Value == "nameref" {
				hidden(n.Variant.Value+" with a flag that evaluates values", n)
				return
			}
			if a.Value != nil && a.Name == nil && subscriptCode(wordOf(a.Value).Text) {
				hidden("a variable name whose subscript runs code", n)
				return
			}
		}
	case *syntax.CmdSubst:
		notLiteral("command substitution", n)
	case *syntax.ProcSubst:
		notLiteral("process substitution", n)
	}
}

// hasBraceExp reports whether bash brace-expands w: an unquoted {a,b} or {x..y} anywhere in it,
// also across quoted parts ({"-r",x}). The word itself is left as it is.
func hasBraceExp(w *syntax.Word) bool {
	cp := *w
	cp.Parts = slices.Clone(w.Parts)
	if !syntax.SplitBraces(&cp) {
		return false
	}
	for _, p := range cp.Parts {
		if _, ok := p.(*syntax.BraceExp); ok {
			return true
		}
	}
	return false
}

// tildeElsewhere reports whether w holds an unquoted tilde-prefix other than ~ alone: ~user
// (another user's home), ~+ ($PWD), ~- ($OLDPWD), ~2 (the directory stack), at the start or
// after an = or : (where bash expands it in assignments).
func tildeElsewhere(w *syntax.Word) bool {
	for i, part := range w.Parts {
		lit, ok := part.(*syntax.Lit)
		if !ok {
			continue
		}
		v := lit.Value
		for j := 0; j < len(v); j++ {
			if v[j] != '~' || j > 0 && v[j-1] != '=' && v[j-1] != ':' || j == 0 && i > 0 {
				continue
			}
			rest := v[j+1:]
			if end := strings.IndexAny(rest, "/:"); end >= 0 {
				rest = rest[:end]
			} else if i+1 < len(w.Parts) {
				return true // ~"user": judged pessimistically
			}
			if rest != "" {
				return true
			}
		}
	}
	return false
}

// paramEvaluates reports whether a parameter expansion evaluates text as code: indirection
// (${!x}, but not ${!prefix*} or ${!a[@]}, which list names), prompt expansion (${x@P}), or a
// subscript or offset that is arithmetic on a variable (${a[i]}, ${s:i:n}).
func paramEvaluates(p *syntax.ParamExp) (string, bool) {
	all := false
	if w, ok := p.Index.(*syntax.Word); ok {
		all = w.Lit() == "@" || w.Lit() == "*"
	}
	switch {
	case p.Excl && p.Names == 0 && !all:
		return "indirect expansion", true
	case p.Exp != nil && p.Exp.Op == syntax.OtherParamOps && p.Exp.Word != nil &&
		strings.Contains(p.Exp.Word.Lit(), "P"):
		return "prompt expansion", true
	case p.Index != nil && !all && arithReads(p.Index):
		return "an array subscript evaluated as arithmetic", true
	case p.Slice != nil && (arithReads(p.Slice.Offset) || arithReads(p.Slice.Length)):
		return "an offset evaluated as arithmetic", true
	}
	return "", false
}

// arithReads reports whether an arithmetic expression reads anything but numbers: a name,
// whose value bash evaluates as arithmetic in turn, or an expansion.
func arithReads(x syntax.ArithmExpr) bool {
	if x == nil {
		return false
	}
	reads := false
	syntax.Walk(x, func(n syntax.Node) bool {
		if w, ok := n.(*syntax.Word); ok && !isNumeral(w.Lit()) {
			reads = true
		}
		return !reads
	})
	return reads
}

// isNumeral: a literal number in any base bash reads (10, 0x1f, 8#17).
func isNumeral(s string) bool {
	return s != "" && s[0] >= '0' && s[0] <= '9' &&
		strings.Trim(s, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ#@_") == ""
}

// testEvaluates reports whether a [[ ]] test evaluates a value as code: an arithmetic
// comparison (-eq, -lt, …) of anything but numbers, or -v and -R on a name with a subscript
// or one only known when the line runs. String tests ([[ $x == y ]]) only compare.
func testEvaluates(x syntax.TestExpr) bool {
	found := false
	syntax.Walk(x, func(n syntax.Node) bool {
		switch t := n.(type) {
		case *syntax.BinaryTest:
			switch t.Op {
			case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
				found = found || !numeralTest(t.X) || !numeralTest(t.Y)
			}
		case *syntax.UnaryTest:
			if t.Op == syntax.TsVarSet || t.Op == syntax.TsRefVar {
				w, ok := t.X.(*syntax.Word)
				found = found || !ok || w.Lit() == "" || strings.Contains(w.Lit(), "[")
			}
		}
		return !found
	})
	return found
}

func numeralTest(x syntax.TestExpr) bool {
	w, ok := x.(*syntax.Word)
	return ok && isNumeral(w.Lit())
}

// declEvaluates reports whether a flag of declare, local or typeset makes later values code:
// -i evaluates every assignment as arithmetic, -n makes a name refer to another, subscript
// and all.
func declEvaluates(flag string) bool {
	return len(flag) > 1 && (flag[0] == '-' || flag[0] == '+') && strings.ContainsAny(flag[1:], "in")
}

// subscriptCode reports whether a literal name holds a subscript with an expansion in it
// (`a[$(cmd)]`), which a builtin that takes a variable name evaluates.
func subscriptCode(s string) bool {
	i := strings.IndexByte(s, '[')
	return i > 0 && strings.ContainsAny(s[i:], "$`")
}

// nameArgs are the builtins that take variable names and evaluate a subscript in them, with the
// option that introduces the name ("" when every operand may be one).
var nameArgs = lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{"test": "-v", "[": "-v", "unset": "", "read": "", "printf": "-v",
		"mapfile": "", "readarray": "", "wait": "-p", "export": "", "readonly": "", "local": "",
		"declare": "", "typeset": "", "let": ""}
}}

// evaluatedName returns the argument of a builtin in nameArgs that names a variable with code in
// its subscript (see subscriptCode).
func evaluatedName(name string, args []Word) (string, bool) {
	opt, ok := nameArgs.Get()[name]
	if !ok || opt != "" && !hasExact(args, opt) {
		return "", false
	}
	for _, a := range args {
		if subscriptCode(a.Text) {
			return a.Text, true
		}
	}
	return "", false
}
