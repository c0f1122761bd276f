package src

// file 14 of the fixture, with a comment long enough
func F14() int { return 14 }
