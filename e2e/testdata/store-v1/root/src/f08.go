package src

// file 08 of the fixture, with a comment long enough
func F08() int { return 8 }
