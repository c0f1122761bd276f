package src

// file 25 of the fixture, with a comment long enough
func F25() int { return 25 }
