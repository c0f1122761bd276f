package store

import (
	"bufio"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the test binary act as a writer process for the crash
// test.
func TestMain(m *testing.M) {
	if dir := os.Getenv("STORE_CRASH_WRITER"); dir != "" {
		crashWriter(dir)
		return
	}
	os.Exit(m.Run())
}

// crashWriter puts objects until it is killed, syncing every few and
// printing "synced N" once objects 0..N-1 of its series are durable.
func crashWriter(dir string) {
	seed, _ := strconv.Atoi(os.Getenv("STORE_CRASH_SEED"))
	flushAt = 64 << 10 // many writes per pack: kills land inside a pack being written
	o, err := Open(dir, Options{})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	r := rand.New(rand.NewSource(int64(seed)))
	for i := 0; ; i++ {
		data := crashContent(seed, i, r.Intn(8000))
		if _, err := o.Put(data); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		if i%40 == 39 {
			if err := o.Sync(); err != nil {
				fmt.Println("error", err)
				os.Exit(1)
			}
			fmt.Println("synced", i+1)
		}
	}
}

// startWriter starts writer k of the crash test on dir and returns it
// with its output. A start that fails is tried again, twice: under wine on
// a loaded machine, creating a process now and then fails ("fork/exec …:
// Internal error."), which says nothing about the store.
func startWriter(t *testing.T, dir string, k int) (*exec.Cmd, io.ReadCloser) {
	t.Helper()
	for try := 1; ; try++ {
		c := exec.Command(os.Args[0], "-test.run=^$")
		c.Env = append(os.Environ(), "STORE_CRASH_WRITER="+dir, fmt.Sprint("STORE_CRASH_SEED=", k))
		out, err := c.StdoutPipe()
		if err == nil {
			err = c.Start()
		}
		if err == nil {
			return c, out
		}
		if try == 3 {
			t.Fatalf("start writer %d: %v", k, err)
		}
		t.Logf("start writer %d, try %d: %v; trying again", k, try, err)
		time.Sleep(100 * time.Millisecond)
	}
}

func crashContent(seed, i, n int) []byte {
	return []byte(fmt.Sprintf("writer %d object %d %s", seed, i, strings.Repeat("x", n)))
}

// TestCrashDuringPackWrite kills writers (SIGKILL) at random moments while
// they append to packs, seal them and merge them; afterwards the store
// verifies clean (torn tails are notes, not damage), every object a
// writer had synced reads back, and gc cleans up what the crashes left.
//
// Every other writer is killed at a random moment counted from its
// start, which may fall anywhere, its start included. The others are
// killed at a random moment counted from their first "synced" line: how
// long a process takes to start and write its first objects depends on
// the machine (under wine on a loaded machine, longer than any of the
// first delays), and a kill that always lands before the first sync would
// leave no synced object to check.
func TestCrashDuringPackWrite(t *testing.T) {
	dir := t.TempDir()
	kills := 20
	if testing.Short() {
		kills = 8
	}
	type synced struct{ seed, n int }
	var done []synced
	afterSync := 0 // kills that landed after the writer's first sync
	r := rand.New(rand.NewSource(2))
	for k := 0; k < kills; k++ {
		c, out := startWriter(t, dir, k)
		last := make(chan int, 1)
		firstSync, ended := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(ended)
			n, seen := 0, false
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				f := strings.Fields(sc.Text())
				if len(f) == 2 && f[0] == "synced" {
					if !seen {
						seen = true
						close(firstSync)
					}
					n, _ = strconv.Atoi(f[1])
				} else {
					t.Errorf("writer: %s", sc.Text())
				}
			}
			last <- n
		}()
		delay := time.Duration(10+r.Intn(120)) * time.Millisecond
		if k%2 == 1 {
			delay = time.Duration(r.Intn(120)) * time.Millisecond
			select {
			case <-firstSync:
			case <-ended: // it stopped by itself, and said why
			case <-time.After(time.Minute):
				t.Errorf("writer %d synced nothing in a minute", k)
			}
		}
		time.Sleep(delay)
		c.Process.Signal(syscall.SIGKILL)
		n := <-last
		c.Wait()
		done = append(done, synced{k, n})
		if n > 0 {
			afterSync++
		}
	}
	unsealed := 0
	for _, p := range packFiles(t, dir) {
		if _, err := os.Stat(idxPath(p)); err != nil {
			unsealed++
		}
	}
	o := open(t, dir)
	rep, err := o.Verify()
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) > 0 {
		t.Fatalf("damage after kills: %+v", rep.Problems)
	}
	t.Logf("%d objects, %d of %d kills after a sync, %d packs left unsealed by a kill, notes: %q",
		rep.Objects, afterSync, kills, unsealed, rep.Notes)
	if afterSync < kills/2 {
		t.Fatalf("only %d of %d kills landed after a sync", afterSync, kills)
	}
	check := func(o *Objects) {
		total := 0
		for _, s := range done {
			rr := rand.New(rand.NewSource(int64(s.seed)))
			for i := 0; i < s.n; i++ {
				data := crashContent(s.seed, i, rr.Intn(8000))
				got, err := o.Get(Sum(data))
				if err != nil || string(got) != string(data) {
					t.Fatalf("writer %d object %d (synced): %v", s.seed, i, err)
				}
				total++
			}
		}
		if total == 0 {
			t.Fatal("no writer synced anything: the test proves nothing")
		}
	}
	check(o)
	if _, err := o.Repack(nil, 0); err != nil {
		t.Fatal(err)
	}
	fresh := open(t, dir)
	if rep, _ := fresh.Verify(); len(rep.Problems) > 0 || len(rep.Notes) > 0 {
		t.Fatalf("after gc: %+v", rep)
	}
	check(fresh)
	// One pack, with its index when it is large enough to have one (how
	// many objects the writers stored before their kills varies with the
	// machine's speed).
	ents, _ := os.ReadDir(fresh.packs)
	packs, others := 0, 0
	for _, e := range ents {
		switch {
		case strings.HasSuffix(e.Name(), ".pack"):
			packs++
		case strings.HasSuffix(e.Name(), ".idx"):
		default:
			others++
		}
	}
	if packs != 1 || others != 0 || len(ents) > 2 {
		t.Fatalf("after gc the packs folder holds %d files (%d packs), want one pack and its index", len(ents), packs)
	}
}
