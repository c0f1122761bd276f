package osfile

// How is the kind of lock Lock and TryLock take.
type How int

const (
	// Shared locks may be held by several files at once, never beside an
	// Exclusive one.
	Shared How = iota
	// Exclusive is held by one file at a time.
	Exclusive
)

func (h How) String() string {
	if h == Exclusive {
		return "exclusive"
	}
	return "shared"
}
