package src

// file 18 of the fixture, with a comment long enough
func F18() int { return 18 }
