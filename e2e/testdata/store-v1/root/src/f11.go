package src

// file 11 of the fixture, with a comment long enough
func F11() int { return 11 }
