package src

// file 30 of the fixture, with a comment long enough
func F30() int { return 30 }
