package tests

import "github.com/toolhost/toolhost/internal/testplugin"

// The benchmarks' CPU clocks (0 off Linux).
var selfCPU, treeCPU = testplugin.SelfCPU, testplugin.TreeCPU
