package main

import (
	"encoding"
	"fmt"
	"github.com/rewind-lsp/rewind-lsp/journal"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strings"
)

// module is the Go module of the repository; a package's folder is its
// path below it.
const module = "github.com/rewind-lsp/rewind-lsp"

// structType is one Go struct of the protocol, as JSON sees it.
type structType struct {
	t      reflect.Type
	doc    string
	embeds []reflect.Type // embedded structs whose fields JSON flattens
	fields []field
}

// field is one JSON field of a struct.
type field struct {
	name     string // the JSON name
	t        reflect.Type
	optional bool // omitempty or omitzero: absent when zero
	doc      string
}

// model is every struct reachable from the commands' arguments and
// results, in the order they are first reached, with their doc comments.
type model struct {
	root    string // the repository
	order   []reflect.Type
	structs map[reflect.Type]*structType
	names   map[string]reflect.Type
	docs    map[string]string // "pkgpath.Type" and "pkgpath.Type.Field"
	parsed  map[string]bool
}

func newModel(root string) *model {
	return &model{root: root, structs: map[reflect.Type]*structType{}, names: map[string]reflect.Type{},
		docs: map[string]string{}, parsed: map[string]bool{}}
}

var textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()

// isText reports whether t travels as a JSON string of its own making.
func isText(t reflect.Type) bool {
	return t.Implements(textMarshaler) || reflect.PointerTo(t).Implements(textMarshaler)
}

// add walks t and every struct it reaches.
func (m *model) add(t reflect.Type) error {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		if t.Kind() == reflect.Map && t.Key().Kind() != reflect.String {
			return fmt.Errorf("%v: map keys must be strings", t)
		}
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || isText(t) || m.structs[t] != nil {
		return nil
	}
	if t.Name() == "" {
		return fmt.Errorf("an anonymous struct %v: name it, so the editors' files can", t)
	}
	if other, ok := m.names[t.Name()]; ok && other != t {
		return fmt.Errorf("two protocol types are named %s (%s and %s)", t.Name(), other.PkgPath(), t.PkgPath())
	}
	if err := m.parse(t.PkgPath()); err != nil {
		return err
	}
	st := &structType{t: t, doc: m.docs[t.PkgPath()+"."+t.Name()]}
	m.structs[t] = st
	m.names[t.Name()] = t
	m.order = append(m.order, t)
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			st.embeds = append(st.embeds, f.Type)
			if err := m.add(f.Type); err != nil {
				return err
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		optional := strings.Contains(","+opts+",", ",omitempty,") || strings.Contains(","+opts+",", ",omitzero,")
		st.fields = append(st.fields, field{name: name, t: f.Type, optional: optional,
			doc: m.docs[t.PkgPath()+"."+t.Name()+"."+f.Name]})
		if err := m.add(f.Type); err != nil {
			return err
		}
	}
	return nil
}

// parse reads the doc comments of the types of package path.
func (m *model) parse(path string) error {
	if m.parsed[path] {
		return nil
	}
	m.parsed[path] = true
	rel, ok := strings.CutPrefix(path, module)
	if !ok {
		return fmt.Errorf("package %s is not of this module", path)
	}
	dir := filepath.Join(m.root, filepath.FromSlash(strings.TrimPrefix(rel, "/")))
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return err
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, s := range g.Specs {
				ts := s.(*ast.TypeSpec)
				doc := ts.Doc
				if doc == nil && len(g.Specs) == 1 {
					doc = g.Doc
				}
				key := path + "." + ts.Name.Name
				m.docs[key] = text(doc)
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				for _, fl := range st.Fields.List {
					d := text(fl.Doc)
					if d == "" {
						d = text(fl.Comment)
					}
					for _, n := range fl.Names {
						m.docs[key+"."+n.Name] = d
					}
				}
			}
		}
	}
	return nil
}

// text is a comment group as one line of prose.
func text(g *ast.CommentGroup) string {
	if g == nil {
		return ""
	}
	return strings.Join(strings.Fields(g.Text()), " ")
}

// tsType is how TypeScript (and docs/PROTOCOL.md) write a Go type; link
// wraps the name of a protocol struct (for the docs' links).
func (m *model) tsType(t reflect.Type, optional bool, link func(string) string) string {
	nullable := func(s string) string {
		if optional {
			return s
		}
		return s + " | null"
	}
	if isText(t) {
		return "string"
	}
	switch t.Kind() {
	case reflect.Pointer:
		return nullable(m.tsType(t.Elem(), true, link))
	case reflect.Slice, reflect.Array:
		e := m.tsType(t.Elem(), true, link)
		if strings.Contains(e, " ") {
			e = "(" + e + ")"
		}
		if t.Kind() == reflect.Array {
			return e + "[]"
		}
		return nullable(e + "[]")
	case reflect.Map:
		return nullable("Record<string, " + m.tsType(t.Elem(), true, link) + ">")
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Interface:
		return "unknown"
	case reflect.Struct:
		return link(t.Name())
	}
	panic(fmt.Sprintf("protogen: no TypeScript for %v", t))
}

// modeNames are the rewind modes, as the editors offer them.
func modeNames() []string {
	var out []string
	for _, m := range journal.Modes {
		out = append(out, string(m))
	}
	return out
}
