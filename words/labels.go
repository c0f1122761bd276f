package words

import (
	"fmt"
	"strings"
)

// The words of the server's own offers and edits: the titles of its code
// actions, the names of turns in its hovers and messages, and the labels
// of the edits an operation sends.

// Turn names a turn inside a sentence, without its prompt: "turn 3" (who
// changed a file since, a hover's heading).
func Turn(n int) string {
	return fmt.Sprintf("turn %d", n)
}

// User names who changed a file when no turn did: someone outside every
// recorded turn (in a revert's overlaps, a fork's notice).
const User = "user"

// Turns names several turns inside a sentence: "turn 3", "turns 3, 4, 7".
func Turns(ns []int) string {
	if len(ns) == 1 {
		return Turn(ns[0])
	}
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return "turns " + strings.Join(s, ", ")
}

// RewindFileAction titles the code action that rewinds one file to the
// state before turn: "Rewind file to before turn 3: fix auth" (the
// prompt's first line, at most 41 characters).
func RewindFileAction(turn int, prompt string) string {
	s := "Rewind file to before " + Turn(turn)
	if p := Prompt(prompt, 41); p != "" {
		s += ": " + p
	}
	return s
}

// PreviewFileAction titles the code action that previews what rewinding
// one file to before turn would do: "Preview turn 3 changes to this file".
func PreviewFileAction(turn int) string {
	return fmt.Sprintf("Preview turn %d changes to this file", turn)
}

// RevertHunkAction titles the code action that rewinds the hunk in view to
// before turn: "Revert this hunk to before turn 3".
func RevertHunkAction(turn int) string {
	return "Revert this hunk to before " + Turn(turn)
}

// RevertHereAction titles the code action that takes back, in the lines
// in view, what a turn changed, or one step of it, keeping later changes:
// "Revert turn 3 here (keep later changes)", "Revert step 2 of turn 3 here
// (Edit a.go)" (a step's title as Step makes it: "turn 3, step 2: Edit
// a.go").
func RevertHereAction(turn, step int, stepTitle string) string {
	if step == 0 {
		return "Revert " + Turn(turn) + " here (keep later changes)"
	}
	s := "Revert " + StepName(turn, step, "", "") + " here"
	if _, what, ok := strings.Cut(stepTitle, ": "); ok {
		s += " (" + what + ")"
	}
	return s
}

// Undo labels the edit that undoes a recorded operation of kind (rewind,
// revert or undo) whose target was turn and step (0: none): "Undo rewind
// to turn 3", "Undo rewind to before step 2 of turn 3", "Undo revert of
// turn 3", "Undo revert of step 2 of turn 3", "Undo undo (redo) to turn
// 3", "Undo rewind" for a target that is no turn.
func Undo(kind string, turn, step int) string {
	if kind == "revert" && turn > 0 && step > 0 {
		return "Undo revert of " + StepName(turn, step, "", "")
	}
	if kind == "revert" && turn > 0 {
		return "Undo revert of " + Turn(turn)
	}
	what := kind
	if kind == "undo" {
		what = "undo (redo)"
	}
	if turn > 0 && step > 0 {
		return "Undo " + what + " to before " + StepName(turn, step, "", "")
	}
	if turn > 0 {
		return "Undo " + what + " to " + Turn(turn)
	}
	return "Undo " + what
}

// CompleteRewind labels the edit that completes an agent's own rewind to
// target (named as Target names it): "Complete claude-code's rewind to
// turn 3 (fix auth)".
func CompleteRewind(agent, target string) string {
	return "Complete " + agent + "'s rewind to " + target
}
