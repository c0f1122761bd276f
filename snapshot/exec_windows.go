package snapshot

// noExecBit: Windows files have no executable bit (a 0755 file reads back
// 0666), so the recorded one is kept.
const noExecBit = true
