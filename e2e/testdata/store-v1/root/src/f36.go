package src

// file 36 of the fixture, with a comment long enough
func F36() int { return 36 }
