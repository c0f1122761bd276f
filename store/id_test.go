package store

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestIDJSON: an ID marshals to its 64 hex digits, the zero ID included,
// and reads back; a malformed or empty id is refused with the id named.
func TestIDJSON(t *testing.T) {
	type rec struct {
		A ID   `json:"a"`
		C []ID `json:"c,omitempty"`
	}
	id := Sum([]byte("x"))
	zero := strings.Repeat("0", 64)
	for _, tc := range []struct {
		in   rec
		want string
	}{
		{rec{A: id, C: []ID{id, {}}}, `{"a":"` + id.String() + `","c":["` + id.String() + `","` + zero + `"]}`},
		{rec{}, `{"a":"` + zero + `"}`},
	} {
		js, err := json.Marshal(tc.in)
		if err != nil || string(js) != tc.want {
			t.Fatalf("marshal %+v = %s, %v; want %s", tc.in, js, err, tc.want)
		}
		var back rec
		if err := json.Unmarshal(js, &back); err != nil || back.A != tc.in.A || len(back.C) != len(tc.in.C) {
			t.Fatalf("unmarshal %s = %+v, %v", js, back, err)
		}
	}
	for _, bad := range []string{`"abc"`, `""`} {
		var r rec
		if err := json.Unmarshal([]byte(`{"a":`+bad+`}`), &r); err == nil || !strings.Contains(err.Error(), bad) {
			t.Fatalf("id %s: %v", bad, err)
		}
	}
}
