package gitnotes

import (
	"reflect"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/filehistory"
	"github.com/rewind-lsp/rewind-lsp/journal"
)

func TestUnquoteC(t *testing.T) {
	for in, want := range map[string]string{
		`b/plain.txt`:         "b/plain.txt",
		`"b/new\nline.txt"`:   "b/new\nline.txt",
		`"b/q\"uote\\.txt"`:   "b/q\"uote\\.txt",
		`"b/caf\303\251.txt"`: "b/café.txt",
		`"b/tab\there.txt"`:   "b/tab\there.txt",
	} {
		if got, err := unquoteC(in); err != nil || got != want {
			t.Errorf("unquoteC(%s) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := unquoteC(`"b/x\`); err == nil {
		t.Errorf("a torn quoted path unquoted")
	}
}

func TestParsePatch(t *testing.T) {
	patch := "diff --git a/a.txt b/a.txt\nindex 1..2 100644\n--- a/a.txt\n+++ b/a.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n@@ -5 +7 @@\n-old\n+new\n@@ -9,2 +10,0 @@\n-gone\n-gone\n" +
		"diff --git a/b.bin b/b.bin\nBinary files a/b.bin and b/b.bin differ\n" +
		"diff --git a/sp ace.txt b/sp ace.txt\nnew file mode 100644\n--- /dev/null\n+++ b/sp ace.txt\t\n@@ -0,0 +1 @@\n++++ not a header\n" +
		"diff --git a/del.txt b/del.txt\ndeleted file mode 100644\n--- a/del.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-d\n"
	got, err := parsePatch([]byte(patch))
	if err != nil {
		t.Fatal(err)
	}
	want := []fileAdds{{path: "a.txt", added: []int{1, 2, 7}}, {path: "sp ace.txt", added: []int{1}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parsePatch = %+v, want %+v", got, want)
	}
}

func TestParseRaw(t *testing.T) {
	raw := ":100644 100644 aaa bbb M\x00a.txt\x00:100644 100644 ccc ddd R087\x00old name\x00new\nname\x00:000000 120000 000 eee A\x00link\x00:100644 000000 fff 000 D\x00gone\x00"
	got, err := parseRaw([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"a.txt": "bbb", "new\nname": "ddd"}; !reflect.DeepEqual(got, want) {
		t.Errorf("parseRaw = %v, want %v", got, want)
	}
}

// TestAttestRanges: added lines meet the blame's runs; consecutive lines of
// one step are one range, a line no turn wrote splits it.
func TestAttestRanges(t *testing.T) {
	turn := &journal.Turn{Number: 1, Start: &journal.Entry{ID: "T", Agent: "claude-code", Session: "S"}}
	s1, s2 := &journal.Entry{ID: "E1", ToolCall: journal.ToolCall{Step: 1, Tool: "Write"}}, &journal.Entry{ID: "E2", ToolCall: journal.ToolCall{Step: 2, Tool: "Bash"}}
	blame := []filehistory.Range{{StartLine: 0, EndLine: 3, Turn: turn, Step: s1}, {StartLine: 4, EndLine: 6, Turn: turn, Step: s2}}
	content := []byte("1\n2\n3\n4\n5\n6\n7\n")
	got := attestRanges([]int{2, 3, 4, 5, 6, 7}, blame, content, func(string) string { return "claude" })
	var spans [][3]int
	for _, r := range got {
		spans = append(spans, [3]int{r.Start, r.End, r.Author.Step})
	}
	if want := [][3]int{{2, 3, 1}, {5, 6, 2}}; !reflect.DeepEqual(spans, want) {
		t.Errorf("ranges %v, want %v", spans, want)
	}
	if got[0].Author.Tool != "claude" || got[0].ContentHash == got[1].ContentHash {
		t.Errorf("ranges %+v", got)
	}
}
