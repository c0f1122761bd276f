package src

// file 06 of the fixture, with a comment long enough
func F06() int { return 6 }
