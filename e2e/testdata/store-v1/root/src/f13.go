package src

// file 13 of the fixture, with a comment long enough
func F13() int { return 13 }
