package src

// file 09 of the fixture, with a comment long enough
func F09() int { return 9 }
