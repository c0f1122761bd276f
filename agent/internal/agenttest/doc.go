// Package agenttest holds what the agents' tests share: the hook runs
// and the three-prompt sessions the real agents wrote (agent/testdata),
// and checks of a fork's lines against its original.
package agenttest
