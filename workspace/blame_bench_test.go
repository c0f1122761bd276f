package workspace

import (
	"fmt"
	"github.com/rewind-lsp/rewind-lsp/filehistory"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkBlame5000 is blame of a 5,000-line file that 50 turns
// changed (the chain walked from its start), in process; the running
// server's numbers are lsp's BenchmarkBlame5000Lines50Turns.
func BenchmarkBlame5000(b *testing.B) {
	w := newWS(b)
	rng := rand.New(rand.NewSource(12))
	lines := make([]string, 5000)
	for i := range lines {
		lines[i] = fmt.Sprintf("\tv%d := compute(input%d, %d) // line %d\n", i, rng.Intn(100), rng.Intn(1000), i)
	}
	w.Write("big.go", strings.Join(lines, ""))
	for turn := 1; turn <= 50; turn++ {
		w.turn(fmt.Sprint(turn), func() {
			for k := 0; k < 20; k++ {
				i := rng.Intn(len(lines))
				lines[i] = fmt.Sprintf("\tv%d := faster(input%d) // turn %d\n", i, rng.Intn(100), turn)
			}
			w.Write("big.go", strings.Join(lines, ""))
		})
	}
	data, _ := os.ReadFile(filepath.Join(w.Root, "big.go"))
	b.Run("cold", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			w.s.blame = filehistory.Blamer{} // nothing walked yet
			if _, err := w.s.Blame("big.go", data, true); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("typed", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			typed := append([]byte(fmt.Sprintf("// %d\n", i)), data...) // a buffer edit: the last step again
			if _, err := w.s.Blame("big.go", typed, true); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("warm", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := w.s.Blame("big.go", data, true); err != nil {
				b.Fatal(err)
			}
		}
	})
}
