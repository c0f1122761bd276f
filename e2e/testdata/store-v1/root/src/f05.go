package src

// file 05 of the fixture, with a comment long enough
func F05() int { return 5 }
