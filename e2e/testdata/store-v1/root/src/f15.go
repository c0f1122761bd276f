package src

// file 15 of the fixture, with a comment long enough
func F15() int { return 15 }
