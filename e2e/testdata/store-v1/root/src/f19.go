package src

// file 19 of the fixture, with a comment long enough
func F19() int { return 19 }
