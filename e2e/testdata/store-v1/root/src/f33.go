package src

// file 33 of the fixture, with a comment long enough
func F33() int { return 33 }
