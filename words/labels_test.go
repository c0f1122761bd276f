package words

import "testing"

// TestLabels: the server's code-action titles, turn names and edit
// labels, word for word.
func TestLabels(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Turn(3), "turn 3"},
		{Turns([]int{3}), "turn 3"},
		{Turns([]int{3, 4, 7}), "turns 3, 4, 7"},
		{RewindFileAction(3, "fix auth\nand the tests"), "Rewind file to before turn 3: fix auth…"},
		{RewindFileAction(3, ""), "Rewind file to before turn 3"},
		{PreviewFileAction(3), "Preview turn 3 changes to this file"},
		{RevertHunkAction(3), "Revert this hunk to before turn 3"},
		{RevertHereAction(3, 0, ""), "Revert turn 3 here (keep later changes)"},
		{RevertHereAction(3, 2, "turn 3, step 2: Edit a.go"), "Revert step 2 of turn 3 here (Edit a.go)"},
		{RevertHereAction(3, 4, "turn 3, step 4"), "Revert step 4 of turn 3 here"},
		{Undo("rewind", 3, 0), "Undo rewind to turn 3"},
		{Undo("rewind", 3, 2), "Undo rewind to before step 2 of turn 3"},
		{Undo("revert", 3, 0), "Undo revert of turn 3"},
		{Undo("revert", 3, 2), "Undo revert of step 2 of turn 3"},
		{Undo("undo", 3, 0), "Undo undo (redo) to turn 3"},
		{Undo("rewind", 0, 0), "Undo rewind"},
		{Undo("revert", 0, 0), "Undo revert"},
		{CompleteRewind("claude-code", "turn 3 (fix auth)"), "Complete claude-code's rewind to turn 3 (fix auth)"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
