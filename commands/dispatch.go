package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// Dispatch decodes the single JSON-object argument of the public (or
// reported) command name and runs it on s: what the language server does
// for workspace/executeCommand. A missing or null argument means {}. Bad
// arguments return an *ArgError naming the field; a name that is not a
// public command returns an error saying so.
func Dispatch(ctx context.Context, s *Service, name string, arg json.RawMessage) (any, error) {
	if !Served(name) {
		return nil, fmt.Errorf("unknown command %q", name)
	}
	return byName[name].dispatch(ctx, s, arg)
}

// Served reports whether the language server runs command name: a public
// command, or a reported one.
func Served(name string) bool {
	e, ok := byName[name]
	return ok && (e.Info().Public || e.Info().Reported)
}

// dispatchAny is Dispatch for every command, internal ones too: what the
// root's socket serves.
func dispatchAny(ctx context.Context, s *Service, name string, arg json.RawMessage) (any, error) {
	e, ok := byName[name]
	if !ok {
		return nil, fmt.Errorf("unknown command %q", name)
	}
	return e.dispatch(ctx, s, arg)
}

// decodeArg decodes one JSON object into v, naming the field on a type error.
func decodeArg(arg json.RawMessage, v any) error {
	t := bytes.TrimSpace(arg)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return nil
	}
	if t[0] != '{' {
		return &ArgError{Msg: "the argument must be a JSON object, got " + describeJSON(t)}
	}
	if err := json.Unmarshal(t, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			field := te.Field
			if field == "" {
				field = "(argument)"
			}
			return &ArgError{Field: field, Msg: fmt.Sprintf("must be %s, got %s", te.Type.String(), te.Value)}
		}
		return &ArgError{Msg: "malformed argument: " + err.Error()}
	}
	return nil
}

func describeJSON(t []byte) string {
	switch t[0] {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	default:
		return "a number"
	}
}
