package src

// file 28 of the fixture, with a comment long enough
func F28() int { return 28 }
