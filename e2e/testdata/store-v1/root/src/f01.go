package src

// file 01 of the fixture, with a comment long enough
func F01() int { return 1 }
