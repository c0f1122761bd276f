package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// The server's soft memory limit follows its live heap. A fixed limit
// below the live data (the live tree and stat cache of a 500,000-file
// root are ~350 MB) makes the collector run at every allocation, and a
// turn end takes several times longer; no limit at all lets the heap
// double before each collection. So after every collection the limit is
// set a margin above what survived it, and never below a floor. It costs
// nothing while the server is idle: no collection, no check. A command-line
// run follows the live heap too, above a higher floor (cliMemoryLimit).

const (
	// memHeadroom is the garbage allowed above the live heap, as a share
	// of it (1/4) plus a fixed amount.
	memHeadroomShift = 2
	memHeadroomFixed = 48 << 20
)

// cliMemoryLimit is the least soft memory limit of a command-line run.
const cliMemoryLimit = 512 << 20

// followLiveHeap starts adjusting the soft memory limit after each
// garbage collection, never below floor.
func followLiveHeap(floor int64) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var arm func()
	arm = func() {
		// An object that becomes garbage at once: its cleanup runs after
		// the next collection, and arms the next one.
		p := new([32]byte)
		runtime.AddCleanup(p, func(struct{}) {
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 {
				debug.SetMemoryLimit(memoryLimitFor(sample[0].Value.Uint64(), floor))
			}
			arm()
		}, struct{}{})
	}
	arm()
}

// memoryLimitFor is the soft limit for a live heap of live bytes.
func memoryLimitFor(live uint64, floor int64) int64 {
	limit := int64(live + live>>memHeadroomShift + memHeadroomFixed)
	return max(limit, floor)
}
