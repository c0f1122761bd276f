package src

// file 00 of the fixture, with a comment long enough
func F00() int { return 0 }
