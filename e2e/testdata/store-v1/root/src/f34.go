package src

// file 34 of the fixture, with a comment long enough
func F34() int { return 34 }
