package src

// file 38 of the fixture, with a comment long enough
func F38() int { return 38 }
