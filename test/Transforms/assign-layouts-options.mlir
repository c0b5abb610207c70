// RUN: not rocktile-opt %s --tile-assign-layouts="target=gfx942" 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not rocktile-opt %s --tile-assign-layouts="target=gfx1250 num-warps=64" 2>&1 | FileCheck %s --check-prefix=WARPS
// RUN: not rocktile-opt %s --tile-assign-layouts="target=gfx950 num-warps=3" 2>&1 | FileCheck %s --check-prefix=POW2

// TARGET: error: unknown target 'gfx942'
// WARPS: error: num_warps must be a power of two with at most 32 warps of 32 lanes on gfx1250, got 64
// POW2: error: num_warps must be a power of two with at most 16 warps of 64 lanes on gfx950, got 3
func.func @k() {
  return
}
