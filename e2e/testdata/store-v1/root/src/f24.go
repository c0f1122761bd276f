package src

// file 24 of the fixture, with a comment long enough
func F24() int { return 24 }
