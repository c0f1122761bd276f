package src

// file 07 of the fixture, with a comment long enough
func F07() int { return 7 }
