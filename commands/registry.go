package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
)

// Spec is what the registry says about one command besides its types:
// everything the language server, the socket, the command line, the MCP
// server, the editors' generated protocol files and docs/PROTOCOL.md are
// made from.
type Spec struct {
	// Name is the command's wire name ("rewind.rewind").
	Name string
	// Public commands are the editors' protocol: the language server
	// advertises them (executeCommandProvider, in registry order) and
	// dispatches them. Internal ones reach a running server only through
	// the root's socket (the command line and hooks), or run in this
	// process.
	Public bool
	// Reported commands are how a client reports what happens (an agent's
	// tool call): the language server dispatches them too, without
	// advertising them among the editors' commands.
	Reported bool
	// Mutating commands record something, so each call carries an
	// idempotency key: a call whose answer was lost is asked again, or run
	// here, under the same key and recorded once.
	Mutating bool
	// NoRecover runs the command on the store as it is: an operation a
	// killed process left unfinished is not finished first (fsck reports
	// what it finds; recovery is itself the command).
	NoRecover bool
	// Progress is the title of the work-done progress the language server
	// reports while the command runs ("" for none of its own).
	Progress string
	// Verb is the command-line verb that runs the command ("turn start"),
	// "" when there is none.
	Verb string
	// Tool is the MCP tool that calls the command, "" when there is none.
	Tool string
	// Doc says in one sentence what the command does (docs/PROTOCOL.md).
	Doc string
}

// Command is one entry of the registry: a Spec, the typed argument A and
// result R, and the Service method that runs it. Call runs it through any
// Client with typed values.
type Command[A, R any] struct {
	Spec
	run func(*Service, context.Context, A) (*R, error)
	// fromWire completes an argument decoded from JSON with what travels
	// beside it (the caller's Call), or nil.
	fromWire func(context.Context, *A)
}

// Entry is a registry entry without its type parameters: what the
// dispatch, the socket and the generators of the protocol files use.
type Entry interface {
	// Info is the entry's Spec.
	Info() Spec
	// Types are the Go types of the argument and the result (a struct
	// each; the wire form is their JSON).
	Types() (arg, result reflect.Type)
	// dispatch decodes a JSON argument and runs the command on s.
	dispatch(ctx context.Context, s *Service, arg json.RawMessage) (any, error)
}

// Info implements Entry.
func (c *Command[A, R]) Info() Spec { return c.Spec }

// Types implements Entry.
func (c *Command[A, R]) Types() (arg, result reflect.Type) {
	return reflect.TypeFor[A](), reflect.TypeFor[R]()
}

func (c *Command[A, R]) dispatch(ctx context.Context, s *Service, raw json.RawMessage) (any, error) {
	var a A
	if err := decodeArg(raw, &a); err != nil {
		return nil, err
	}
	if c.fromWire != nil {
		c.fromWire(ctx, &a)
	}
	return c.run(s, ctx, a)
}

// Call runs the command through cl: in this process for a *Service; for an
// *Auto, through the language server running for the root when there is
// one, else here.
func (c *Command[A, R]) Call(ctx context.Context, cl Client, a A) (*R, error) {
	remote := new(R)
	var local *R
	ran := false
	err := cl.invoke(ctx, c.Spec, a, remote, func(ctx context.Context, s *Service) (err error) {
		ran = true
		local, err = c.run(s, ctx, a)
		return err
	})
	if err != nil {
		return nil, err
	}
	if ran {
		return local, nil
	}
	return remote, nil
}

// registry holds every command, in the order the language server
// advertises the public ones.
var (
	registry []Entry
	byName   = map[string]Entry{}
)

// define adds a command to the registry.
func define[A, R any](s Spec, run func(*Service, context.Context, A) (*R, error)) *Command[A, R] {
	if _, dup := byName[s.Name]; dup {
		panic(fmt.Sprintf("commands: %s defined twice", s.Name))
	}
	c := &Command[A, R]{Spec: s, run: run}
	registry = append(registry, c)
	byName[s.Name] = c
	return c
}

// Entries lists every command of the registry, public and internal, in
// registry order.
func Entries() []Entry { return append([]Entry(nil), registry...) }

// Lookup returns the command named name.
func Lookup(name string) (Entry, bool) {
	e, ok := byName[name]
	return e, ok
}

// publicNames lists the public commands' names in registry order.
func publicNames() []string {
	var out []string
	for _, e := range registry {
		if e.Info().Public {
			out = append(out, e.Info().Name)
		}
	}
	return out
}

// mutating reports whether command name records something, so it carries
// an idempotency key.
func mutating(name string) bool {
	e, ok := byName[name]
	return ok && e.Info().Mutating
}
