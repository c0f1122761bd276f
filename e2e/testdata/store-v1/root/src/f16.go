package src

// file 16 of the fixture, with a comment long enough
func F16() int { return 16 }
