package src

// file 27 of the fixture, with a comment long enough
func F27() int { return 27 }
