package soak

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	procfs "github.com/rewind-lsp/rewind-lsp/bench/internal/proc"
)

// window is what one thousand turns (or the short run's slice) measured.
type window struct {
	from, to int // turn numbers, inclusive
	ends     map[string][]time.Duration
	counts   map[string]int
	rss      int64   // kB at the end of the window
	rssSeen  []int64 // kB, sampled every tenth step
	store    int64   // bytes at the end of the window
	failures int
	took     time.Duration
}

func newWindow(from int) *window {
	return &window{from: from, ends: map[string][]time.Duration{}, counts: map[string]int{}}
}

func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return -1
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(p*float64(len(s))+0.5) - 1
	if i < 0 {
		i = 0
	}
	if i >= len(s) {
		i = len(s) - 1
	}
	return s[i]
}

func msText(d time.Duration) string {
	if d < 0 {
		return "-"
	}
	return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 1, 64)
}

// rssKB is the resident memory of process pid.
func rssKB(pid int) (int64, error) { return procfs.Status(pid, "VmRSS") }

// duBytes is the size of the files below dir.
func duBytes(dir string) int64 {
	var n int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

// medianKB is the median of samples (0 when there are none).
func medianKB(samples []int64) int64 {
	if len(samples) == 0 {
		return 0
	}
	s := append([]int64(nil), samples...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func mb(b int64) string { return strconv.FormatFloat(float64(b)/(1<<20), 'f', 1, 64) }
