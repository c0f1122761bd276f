package src

// file 10 of the fixture, with a comment long enough
func F10() int { return 10 }
