package src

// file 22 of the fixture, with a comment long enough
func F22() int { return 22 }
