package src

// file 23 of the fixture, with a comment long enough
func F23() int { return 23 }
