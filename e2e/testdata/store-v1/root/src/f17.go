package src

// file 17 of the fixture, with a comment long enough
func F17() int { return 17 }
