package src

// file 04 of the fixture, with a comment long enough
func F04() int { return 4 }
