package gitignore

import "strings"

// This file holds the pattern side of the ignore rules: one line of a
// .gitignore-style file becomes an ignorePattern, compiled once into tokens so
// that matching a path never re-parses the pattern. The matcher follows git's
// wildmatch step by step (including its early-abort return codes), because
// "identical to git" includes git's quirks, not only the documented syntax.

// Pattern flags, as git names them.
const (
	patNegative  = 1 << iota // line started with '!'
	patMustBeDir             // line ended with '/'
	patNoDir                 // no '/' left: match the basename only
	patEndsWith              // "*literal": a suffix compare is enough
)

// ignorePattern is one compiled line of an ignore file.
type ignorePattern struct {
	flags uint8
	// literal is true when the text to match has no wildcard at all: the
	// basename (patNoDir) or the path relative to the ignore file's folder
	// must then equal lit.
	literal bool
	// lit is the literal head of the pattern. For patNoDir patterns it is the
	// whole pattern when literal, or the suffix after '*' for patEndsWith.
	// For path patterns it is the wildcard-free prefix (leading '/' removed).
	lit string
	// wild matches what remains after lit when the pattern has wildcards.
	wild wildPattern
}

// parseIgnoreLine compiles one line (already stripped of its line ending) the
// way git's add_pattern does. It reports false for lines that hold no
// pattern: empty lines and comments.
func parseIgnoreLine(line string) (ignorePattern, bool) {
	if i := strings.IndexByte(line, 0); i >= 0 {
		line = line[:i] // git reads each line as a C string
	}
	if line == "" || line[0] == '#' {
		return ignorePattern{}, false
	}
	line = trimTrailingSpaces(line)
	var p ignorePattern
	if line != "" && line[0] == '!' {
		p.flags |= patNegative
		line = line[1:]
	}
	full := line // git keeps the trailing '/' when it measures wildcards
	if strings.HasSuffix(line, "/") {
		p.flags |= patMustBeDir
		line = line[:len(line)-1]
	}
	if strings.IndexByte(line, '/') < 0 {
		p.flags |= patNoDir
	}
	noWild := min(simpleLength(full), len(line))
	if full != "" && full[0] == '*' && simpleLength(full[1:]) == len(full)-1 {
		p.flags |= patEndsWith
	}

	if p.flags&patNoDir != 0 {
		switch {
		case noWild == len(line):
			p.literal, p.lit = true, line
		case p.flags&patEndsWith != 0:
			p.lit = line[1:]
		default:
			p.wild = compileWild(line)
		}
		return p, true
	}
	if line[0] == '/' { // anchored; the leading '/' is not matched
		line = line[1:]
		noWild--
	}
	p.lit = line[:noWild]
	p.literal = noWild == len(line)
	if !p.literal {
		p.wild = compileWild(line[noWild:])
	}
	return p, true
}

// trimTrailingSpaces drops unescaped trailing spaces, as git does.
func trimTrailingSpaces(s string) string {
	lastSpace := -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			if lastSpace < 0 {
				lastSpace = i
			}
		case '\\':
			i++
			if i >= len(s) {
				return s
			}
			lastSpace = -1
		default:
			lastSpace = -1
		}
	}
	if lastSpace >= 0 {
		return s[:lastSpace]
	}
	return s
}

// isGlobSpecial reports the characters git's simple_length stops at.
func isGlobSpecial(c byte) bool {
	return c == '*' || c == '?' || c == '[' || c == '\\'
}

// simpleLength is the length of the wildcard-free head of s.
func simpleLength(s string) int {
	for i := 0; i < len(s); i++ {
		if isGlobSpecial(s[i]) {
			return i
		}
	}
	return len(s)
}

// matchBasename matches a patNoDir pattern against a path's last component.
func (p *ignorePattern) matchBasename(base string) bool {
	switch {
	case p.literal:
		return base == p.lit
	case p.flags&patEndsWith != 0:
		return strings.HasSuffix(base, p.lit)
	default:
		return p.wild.match(base)
	}
}

// matchPath matches a pattern holding a '/' against name, the path relative
// to the folder of the ignore file the pattern came from.
func (p *ignorePattern) matchPath(name string) bool {
	if len(p.lit) > len(name) || name[:len(p.lit)] != p.lit {
		return false
	}
	rest := name[len(p.lit):]
	if p.literal {
		return rest == ""
	}
	return p.wild.match(rest)
}

// matches reports whether the pattern applies to a path. name is the path
// relative to the pattern's folder, base its last component.
func (p *ignorePattern) matches(name, base string, isDir bool) bool {
	if p.flags&patMustBeDir != 0 && !isDir {
		return false
	}
	if p.flags&patNoDir != 0 {
		return p.matchBasename(base)
	}
	return p.matchPath(name)
}

// Results of dowild, as in git's wildmatch: the two abort codes let an
// enclosing '*' stop trying further text positions early.
const (
	wmMatch = iota
	wmNoMatch
	wmAbortAll
	wmAbortToStarStar
)

// Token kinds of a compiled wildcard pattern.
const (
	tokLit   = iota // one literal byte
	tokAny          // '?'
	tokClass        // '[...]'
	tokStar         // a run of '*'
	tokNever        // trailing lone '\' or malformed class: fails when reached
)

// wildToken is one element of a compiled pattern.
type wildToken struct {
	kind uint8
	c    byte // tokLit: the byte
	// esc marks a literal written with a backslash; git's shortcuts look at
	// the raw pattern byte, so "\/" and "/" differ there.
	esc bool
	// dbl marks a star run that may cross '/': "**" at the start or after
	// '/', and followed by '/' or the end.
	dbl bool
	set *[4]uint64 // tokClass: the bytes the class accepts
}

// wildPattern is a precompiled wildmatch pattern (git's WM_PATHNAME mode).
type wildPattern struct {
	toks []wildToken
	// must is the longest run of literal tokens; every matching text holds
	// it, so texts without it are rejected before any backtracking.
	must string
}

// compileWild turns pattern text into tokens. It never fails: constructs git
// rejects at match time become tokNever.
func compileWild(pat string) wildPattern {
	var toks []wildToken
	for i := 0; i < len(pat); {
		c := pat[i]
		switch c {
		case '\\':
			if i+1 >= len(pat) {
				return wildPattern{toks: append(toks, wildToken{kind: tokNever})}
			}
			toks = append(toks, wildToken{kind: tokLit, c: pat[i+1], esc: true})
			i += 2
		case '?':
			toks = append(toks, wildToken{kind: tokAny})
			i++
		case '*':
			j := i
			for j < len(pat) && pat[j] == '*' {
				j++
			}
			t := wildToken{kind: tokStar}
			if j-i >= 2 {
				startOK := i == 0 || pat[i-1] == '/'
				endOK := j == len(pat) || pat[j] == '/' ||
					(pat[j] == '\\' && j+1 < len(pat) && pat[j+1] == '/')
				t.dbl = startOK && endOK
			}
			toks = append(toks, t)
			i = j
		case '[':
			set, end, ok := compileClass(pat, i)
			if !ok {
				return wildPattern{toks: append(toks, wildToken{kind: tokNever})}
			}
			toks = append(toks, wildToken{kind: tokClass, set: set})
			i = end + 1
		default:
			toks = append(toks, wildToken{kind: tokLit, c: c})
			i++
		}
	}
	return wildPattern{toks: toks, must: longestLiteralRun(toks)}
}

// longestLiteralRun finds the longest sequence of consecutive literal tokens.
// A '/' right after "**" is left out: "**/" may match nothing at all.
func longestLiteralRun(toks []wildToken) string {
	var best, cur []byte
	for i, tk := range toks {
		skippable := i > 0 && toks[i-1].kind == tokStar && toks[i-1].dbl
		if tk.kind != tokLit || skippable {
			cur = cur[:0]
			continue
		}
		cur = append(cur, tk.c)
		if len(cur) > len(best) {
			best = append(best[:0], cur...)
		}
	}
	return string(best)
}

// match reports whether the whole text matches.
//
// git's algorithm backtracks, and some patterns ("*a*a*a*a*a*a*ac") take
// exponential time in git too. Its early aborts only prune hopeless
// branches, so its answer is that of the pattern read as an automaton; when
// backtracking exceeds a budget, match simulates that automaton instead.
func (w *wildPattern) match(text string) bool {
	if len(w.must) > 0 && !strings.Contains(text, w.must) {
		return false
	}
	r := wildRun{toks: w.toks, budget: 1 << 12}
	res := r.step(0, text)
	if r.budget < 0 {
		return w.matchAutomaton(text)
	}
	return res == wmMatch
}

// matchAutomaton runs the tokens as a nondeterministic automaton, in time
// proportional to len(toks)*len(text). A star's state is split in two:
// entered (it may still match nothing, and "**/" may skip its '/') and
// looping (it consumed text, so what follows must come next).
func (w *wildPattern) matchAutomaton(text string) bool {
	toks := w.toks
	n := len(toks) + 1
	cur, next := make([]bool, 2*n), make([]bool, 2*n) // [0,n) entered, [n,2n) looping
	closure := func(set []bool) {
		for p, tk := range toks {
			if tk.kind != tokStar || !set[p] && !set[n+p] {
				continue
			}
			set[p+1] = true
			if set[p] && tk.dbl && p+1 < len(toks) && toks[p+1].kind == tokLit && toks[p+1].c == '/' && !toks[p+1].esc {
				set[p+2] = true
			}
		}
	}
	cur[0] = true
	closure(cur)
	for i := 0; i < len(text); i++ {
		c := text[i]
		clear(next)
		for p, tk := range toks {
			if !cur[p] && !cur[n+p] {
				continue
			}
			switch tk.kind {
			case tokLit:
				next[p+1] = next[p+1] || c == tk.c
			case tokAny:
				next[p+1] = next[p+1] || c != '/'
			case tokClass:
				next[p+1] = next[p+1] || c != '/' && tk.set[c>>6]&(1<<(c&63)) != 0
			case tokStar:
				next[n+p] = next[n+p] || tk.dbl || c != '/'
			}
		}
		closure(next)
		cur, next = next, cur
	}
	return cur[len(toks)]
}

// wildRun is the state of one backtracking match.
type wildRun struct {
	toks   []wildToken
	budget int // steps left before match gives up on backtracking
}

// step matches toks[p:] against text, a suffix of the whole text.
func (r *wildRun) step(p int, text string) int {
	if r.budget--; r.budget < 0 {
		return wmAbortAll // unwinds at once
	}
	return r.dowild(p, text)
}

// dowild mirrors git's function of that name.
func (r *wildRun) dowild(p int, text string) int {
	toks := r.toks
	for ; p < len(toks); p, text = p+1, text[1:] {
		tk := &toks[p]
		if tk.kind == tokStar {
			res, np, ntext := r.star(p, text)
			if res < 0 { // a single '*' before '/': go on after that '/'
				p, text = np, ntext
				continue
			}
			return res
		}
		if text == "" {
			return wmAbortAll
		}
		tc := text[0]
		switch tk.kind {
		case tokLit:
			if tc != tk.c {
				return wmNoMatch
			}
		case tokAny:
			if tc == '/' {
				return wmNoMatch
			}
		case tokClass:
			if tc == '/' || tk.set[tc>>6]&(1<<(tc&63)) == 0 {
				return wmNoMatch
			}
		default: // tokNever
			return wmAbortAll
		}
	}
	if text != "" {
		return wmNoMatch
	}
	return wmMatch
}

// star handles the star run at toks[p]. It returns a result, or -1 with the
// position to go on from when a single '*' skipped to the next '/'.
func (r *wildRun) star(p int, text string) (int, int, string) {
	toks := r.toks
	next := p + 1
	matchSlash := false
	if toks[p].dbl {
		if next < len(toks) && toks[next].kind == tokLit && toks[next].c == '/' && !toks[next].esc &&
			r.step(next+1, text) == wmMatch {
			return wmMatch, 0, ""
		}
		matchSlash = true
	}
	if next == len(toks) {
		if !matchSlash && strings.IndexByte(text, '/') >= 0 {
			return wmNoMatch, 0, ""
		}
		return wmMatch, 0, ""
	}
	if nt := &toks[next]; !matchSlash && nt.kind == tokLit && nt.c == '/' && !nt.esc {
		i := strings.IndexByte(text, '/')
		if i < 0 {
			return wmNoMatch, 0, ""
		}
		return -1, next, text[i:] // the loop consumes the '/' on both sides
	}
	return r.starLoop(next, text, matchSlash), 0, ""
}

// starLoop tries every split of text after a star, as dowild's inner loop.
func (r *wildRun) starLoop(next int, text string, matchSlash bool) int {
	nt := &r.toks[next]
	fast := nt.kind == tokLit && !nt.esc
	for text != "" {
		if fast {
			// Skip to the next occurrence of the literal, never past a '/'
			// that this star cannot cross.
			i := 0
			for i < len(text) && (matchSlash || text[i] != '/') && text[i] != nt.c {
				i++
			}
			text = text[i:]
			if text == "" || text[0] != nt.c {
				return wmNoMatch
			}
		}
		res := r.step(next, text)
		if res != wmNoMatch {
			if !matchSlash || res != wmAbortToStarStar {
				return res
			}
		} else if !matchSlash && text[0] == '/' {
			return wmAbortToStarStar
		}
		text = text[1:]
	}
	return wmAbortAll
}

// compileClass evaluates the class starting at pat[open] == '[' for every
// byte, following git's parser exactly, and returns the accepted set and the
// index of the closing ']'. ok is false when git would abort the match.
func compileClass(pat string, open int) (set *[4]uint64, end int, ok bool) {
	set = new([4]uint64)
	for t := 1; t < 256; t++ {
		m, e, good := classAccepts(pat, open, byte(t))
		if !good {
			return nil, 0, false
		}
		end = e
		if m {
			set[t>>6] |= 1 << (t & 63)
		}
	}
	return set, end, true
}

// classAccepts is git's character-class step for one text byte t.
func classAccepts(pat string, p int, t byte) (matched bool, end int, ok bool) {
	at := func(i int) byte { // the pattern as a NUL-terminated C string
		if i < len(pat) {
			return pat[i]
		}
		return 0
	}
	p++
	pc := at(p)
	if pc == '^' {
		pc = '!'
	}
	negated := pc == '!'
	if negated {
		p++
		pc = at(p)
	}
	var prev byte
	for {
		if pc == 0 {
			return false, 0, false
		}
		switch {
		case pc == '\\':
			p++
			pc = at(p)
			if pc == 0 {
				return false, 0, false
			}
			if t == pc {
				matched = true
			}
		case pc == '-' && prev != 0 && at(p+1) != 0 && at(p+1) != ']':
			p++
			pc = at(p)
			if pc == '\\' {
				p++
				pc = at(p)
				if pc == 0 {
					return false, 0, false
				}
			}
			if t <= pc && t >= prev {
				matched = true
			}
			pc = 0
		case pc == '[' && at(p+1) == ':':
			p += 2
			s := p
			for at(p) != 0 && at(p) != ']' {
				p++
			}
			if at(p) == 0 {
				return false, 0, false
			}
			if p-s-1 < 0 || at(p-1) != ':' {
				p = s - 2 // not "[:name:]": a plain '['
				pc = '['
				if t == pc {
					matched = true
				}
				break
			}
			in, known := namedClass(pat[s:p-1], t)
			if !known {
				return false, 0, false
			}
			matched = matched || in
			pc = 0
		default:
			if t == pc {
				matched = true
			}
		}
		prev = pc
		p++
		pc = at(p)
		if pc == ']' {
			break
		}
	}
	return matched != negated, p, true
}

// namedClass answers "[:name:]" for byte t with git's ASCII-only ctype.
func namedClass(name string, t byte) (in, known bool) {
	alpha := t >= 'a' && t <= 'z' || t >= 'A' && t <= 'Z'
	digit := t >= '0' && t <= '9'
	space := t == ' ' || t == '\t' || t == '\n' || t == '\r'
	print := t >= 0x20 && t <= 0x7e
	switch name {
	case "alnum":
		return alpha || digit, true
	case "alpha":
		return alpha, true
	case "blank":
		return t == ' ' || t == '\t', true
	case "cntrl":
		return t < 0x20 || t == 0x7f, true
	case "digit":
		return digit, true
	case "graph":
		return print && t != ' ', true
	case "lower":
		return t >= 'a' && t <= 'z', true
	case "print":
		return print, true
	case "punct":
		return print && !alpha && !digit && t != ' ', true
	case "space":
		return space, true
	case "upper":
		return t >= 'A' && t <= 'Z', true
	case "xdigit":
		return digit || t >= 'a' && t <= 'f' || t >= 'A' && t <= 'F', true
	}
	return false, false
}
