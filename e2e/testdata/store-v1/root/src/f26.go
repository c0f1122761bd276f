package src

// file 26 of the fixture, with a comment long enough
func F26() int { return 26 }
