package src

// file 29 of the fixture, with a comment long enough
func F29() int { return 29 }
