package main

import (
	"fmt"
	"strings"

	"github.com/rewind-lsp/rewind-lsp/commands"
)

// The generated parts of docs/PROTOCOL.md, each between
// "<!-- BEGIN GENERATED name -->" and "<!-- END GENERATED name -->".

// blocks returns the generated blocks by name.
func blocks(m *model) map[string]string {
	return map[string]string{
		"commands": commandTable(m, true),
		"internal": commandTable(m, false),
		"types":    typeReference(m),
		"verbs": mapTable("verb", func(s commands.Spec) string {
			if s.Verb == "" {
				return ""
			}
			return "rewind-lsp " + s.Verb
		}),
		"tools": mapTable("tool", func(s commands.Spec) string { return s.Tool }),
		"modes": "`" + strings.Join(modeNames(), "`, `") + "`\n",
	}
}

func anchor(name string) string { return "[`" + name + "`](#" + strings.ToLower(name) + ")" }

func code(s string) string {
	if s == "" {
		return ""
	}
	return "`" + s + "`"
}

func commandTable(m *model, public bool) string {
	var b strings.Builder
	b.WriteString("| command | argument | result | does | records | CLI verb | MCP tool |\n|---|---|---|---|---|---|---|\n")
	for _, e := range commands.Entries() {
		s := e.Info()
		if s.Public != public {
			continue
		}
		a, r := e.Types()
		records := ""
		if s.Mutating {
			records = "yes"
		}
		verb := ""
		if s.Verb != "" {
			verb = "`rewind-lsp " + s.Verb + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s | %s |\n", s.Name, anchor(a.Name()), anchor(r.Name()), s.Doc, records, verb, code(s.Tool))
	}
	return b.String()
}

func typeReference(m *model) string {
	var b strings.Builder
	for i, t := range m.order {
		st := m.structs[t]
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "#### `%s`\n\n", t.Name())
		if st.doc != "" {
			b.WriteString(strings.Join(wrap(st.doc, 100), "\n") + "\n\n")
		}
		for _, e := range st.embeds {
			fmt.Fprintf(&b, "With the fields of %s.\n\n", anchor(e.Name()))
		}
		if len(st.fields) == 0 {
			b.WriteString("No fields of its own.\n")
			continue
		}
		b.WriteString("| field | type | meaning |\n|---|---|---|\n")
		for _, f := range st.fields {
			name := "`" + f.name + "`"
			if f.optional {
				name = "`" + f.name + "?`"
			}
			ty := m.tsType(f.t, f.optional, anchor)
			fmt.Fprintf(&b, "| %s | %s | %s |\n", name, strings.ReplaceAll(ty, "|", "\\|"), f.doc)
		}
	}
	return b.String()
}

// mapTable lists the commands that name(spec) maps to, as "| name | command |"
// rows under header.
func mapTable(header string, name func(commands.Spec) string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| %s | command |\n|---|---|\n", header)
	for _, e := range commands.Entries() {
		if n := name(e.Info()); n != "" {
			fmt.Fprintf(&b, "| `%s` | `%s` |\n", n, e.Info().Name)
		}
	}
	return b.String()
}

// fill replaces the generated blocks of doc; a block the document lacks
// is an error.
func fill(doc string, blocks map[string]string) (string, error) {
	for name, body := range blocks {
		begin, end := "<!-- BEGIN GENERATED "+name+" -->\n", "<!-- END GENERATED "+name+" -->"
		i := strings.Index(doc, begin)
		j := strings.Index(doc, end)
		if i < 0 || j < i {
			return "", fmt.Errorf("docs/PROTOCOL.md has no block %q (%s … %s)", name, strings.TrimSpace(begin), end)
		}
		doc = doc[:i+len(begin)] + body + doc[j:]
	}
	return doc, nil
}
