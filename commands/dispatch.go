package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// Dispatch decodes the single JSON-object argument of command name and calls
// the matching Service method. A missing or null argument means {}. Bad
// arguments return an *ArgError naming the field; an unknown name returns an
// error saying so.
func Dispatch(ctx context.Context, s *Service, name string, arg json.RawMessage) (any, error) {
	switch name {
	case NameCheckpoint:
		var a CheckpointArgs
		if err := decodeArg(arg, &a); err != nil {
			return nil, err
		}
		return s.Checkpoint(ctx, a)
	case NameTurnStart:
		var a TurnStartArgs
		if err := decodeArg(arg, &a); err != nil {
			return nil, err
		}
		a.Source = CallOf(ctx).Source // forwarded from the command line or a hook
		if a.Source == "" {
			a.Source = "editor"
		}
		return s.TurnStart(ctx, a)
	case NameTurnEnd:
		var a TurnEndArgs
		if err := decodeArg(arg, &a); err != nil {
			return nil, err
		}
		return s.TurnEnd(ctx, a)
	case NameList:
		var a ListArgs
		if err := decodeArg(arg, &a); err != nil {
			return nil, err
		}
		return s.List(ctx, a)
	case NamePreview:
		var a PreviewArgs
		if err := decodeArg(arg, &a); err != nil {
			return nil, err
		}
		return s.Preview(ctx, a)
	case NameRewind:
		var a RewindArgs
		if err := decodeArg(arg, &a); err != nil {
			return nil, err
		}
		return s.Rewind(ctx, a)
	case NameUndo:
		var a UndoArgs
		if err := decodeArg(arg, &a); err != nil {
			return nil, err
		}
		return s.Undo(ctx, a)
	case NameFileHistory:
		var a FileHistoryArgs
		if err := decodeArg(arg, &a); err != nil {
			return nil, err
		}
		return s.FileHistory(ctx, a)
	case NameStatus:
		var a StatusArgs
		if err := decodeArg(arg, &a); err != nil {
			return nil, err
		}
		return s.Status(ctx, a)
	case NameRevert:
		var a RevertArgs
		if err := decodeArg(arg, &a); err != nil {
			return nil, err
		}
		return s.Revert(ctx, a)
	case NameBlame:
		var a BlameArgs
		if err := decodeArg(arg, &a); err != nil {
			return nil, err
		}
		return s.Blame(ctx, a)
	}
	return nil, fmt.Errorf("unknown command %q", name)
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
