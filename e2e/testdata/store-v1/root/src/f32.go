package src

// file 32 of the fixture, with a comment long enough
func F32() int { return 32 }
