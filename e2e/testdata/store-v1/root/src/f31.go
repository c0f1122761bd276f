package src

// file 31 of the fixture, with a comment long enough
func F31() int { return 31 }
