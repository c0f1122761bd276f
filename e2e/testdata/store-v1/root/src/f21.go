package src

// file 21 of the fixture, with a comment long enough
func F21() int { return 21 }
