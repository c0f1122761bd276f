package src

// file 12 of the fixture, with a comment long enough
func F12() int { return 12 }
