package main

import (
	"context"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"strconv"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	if p := os.Getenv("REWIND_LSP_CPUPROFILE"); p != "" {
		// A developer's aid: profile one command-line run.
		if f, err := os.Create(p); err == nil {
			pprof.StartCPUProfile(f)
			code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
			pprof.StopCPUProfile()
			f.Close()
			stop()
			os.Exit(code)
		}
	}
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	if p := os.Getenv("REWIND_LSP_MEMPROFILE"); p != "" {
		// A developer's aid: what the heap holds when a run (a server's
		// too) ends; one file per process (PATH.PID).
		if f, err := os.Create(p + "." + strconv.Itoa(os.Getpid())); err == nil {
			runtime.GC()
			pprof.WriteHeapProfile(f)
			f.Close()
		}
	}
	os.Exit(code)
}
