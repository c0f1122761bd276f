package src

// file 03 of the fixture, with a comment long enough
func F03() int { return 3 }

// edited in turn 1
