package lsp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"strings"
	"testing"
)

func frame(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }

// TestFrameStreamResync feeds bad input between good messages: every good
// message still comes through, bad ones are answered with id null.
func TestFrameStreamResync(t *testing.T) {
	good := func(n int) string { return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"m"}`, n) }
	input := strings.Join([]string{
		frame(good(1)),
		"garbage without a newline" + frame(good(2)),
		"Content-Length: 3\r\n\r\n{x}",                                // not JSON
		frame(`{"jsonrpc":"2.0","id":-1,"method":"m"}`),               // bad id
		frame(`[{"jsonrpc":"2.0","id":3,"method":"m"}]`),              // a batch
		"Content-Type: application/json\r\n\r\n",                      // no length
		"Content-Length: 99999999999\r\n\r\n",                         // absurd length
		frame(`{"jsonrpc":"2.0","id":5,"result":null}`),               // a response
		"\r\n\n" + frame(good(4)),                                     // stray blank lines
		"Content-Length: 10\r\n\r\n" + `{"a":1}` + frame(good(6))[:3], // short body eats the next header's start
		frame(good(7)),
		"content-length: " + fmt.Sprint(len(good(8))) + "\n\n" + good(8), // lower case, bare \n
	}, "")
	var out bytes.Buffer
	s := newFrameStream(strings.NewReader(input), &out, log.New(io.Discard, "", 0))
	var ids []string
	for {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := s.ReadObject(&m); err != nil {
			if err != io.EOF {
				t.Fatalf("read: %v", err)
			}
			break
		}
		ids = append(ids, string(m.ID))
	}
	if got, want := strings.Join(ids, ","), "1,2,5,4,7,8"; got != want {
		t.Fatalf("read ids %s; want %s", got, want)
	}
	answers := strings.Count(out.String(), `"id":null`)
	if answers < 5 {
		t.Fatalf("%d error answers for the bad messages; want at least 5:\n%s", answers, out.String())
	}
}
