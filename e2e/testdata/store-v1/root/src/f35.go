package src

// file 35 of the fixture, with a comment long enough
func F35() int { return 35 }
