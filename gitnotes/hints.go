package gitnotes

import (
	"context"
	"strings"
)

// hintTrailers are the trailers that say an agent took part in a commit
// without saying which lines it wrote.
var hintTrailers = map[string]bool{"assisted-by": true, "claude-session": true, "entire-checkpoint": true}

// Hints lists rev's commit-level hints of an agent: its Assisted-by,
// Claude-Session and Entire-Checkpoint trailers, and its Co-authored-by
// trailers whose address agent (agents.AgentAddress) knows, each as
// "Name: value". They say nothing of lines.
func Hints(ctx context.Context, r Repo, rev string, agent func(email string) string) ([]string, error) {
	out, err := r.git(ctx, nil, "log", "-1", "--format=%(trailers:only,unfold)", "--end-of-options", rev)
	if err != nil {
		return nil, err
	}
	hints := []string{}
	for _, line := range strings.Split(string(out), "\n") {
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		value = strings.TrimSpace(value)
		switch key := strings.ToLower(strings.TrimSpace(name)); {
		case hintTrailers[key]:
			hints = append(hints, strings.TrimSpace(name)+": "+value)
		case key == "co-authored-by" && agent != nil:
			if i, j := strings.LastIndex(value, "<"), strings.LastIndex(value, ">"); i >= 0 && j > i && agent(value[i+1:j]) != "" {
				hints = append(hints, strings.TrimSpace(name)+": "+value)
			}
		}
	}
	return hints, nil
}
