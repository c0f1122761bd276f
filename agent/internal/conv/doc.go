// Package conv reads and writes the agents' conversation files for their
// packages: lines read backwards from a point and forwards between two,
// JSON object lines read by their top-level members only, the fork point
// of a JSON Lines file, and new files that appear whole or not at all.
package conv
