package src

// file 02 of the fixture, with a comment long enough
func F02() int { return 2 }
