package src

// file 37 of the fixture, with a comment long enough
func F37() int { return 37 }
