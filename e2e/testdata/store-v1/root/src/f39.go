package src

// file 39 of the fixture, with a comment long enough
func F39() int { return 39 }
