package src

// file 20 of the fixture, with a comment long enough
func F20() int { return 20 }
