// Package pi connects rewind-lsp to pi and oh-my-pi, its fork: the
// events rewind-lsp's extension (extensions/pi) hands on, their session
// file and its leaf as the fork point, the fork a conversation rewind
// writes, oh-my-pi's own checkpoint and rewind tools (agent.OwnTools), and
// the extension setup installs.
package pi
