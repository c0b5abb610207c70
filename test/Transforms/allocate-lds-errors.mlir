// RUN: rocktile-opt %s --tile-allocate-lds="target=gfx950" -verify-diagnostics
// RUN: rocktile-opt %s --tile-allocate-lds="target=gfx1250" | FileCheck %s --check-prefix=GFX1250

#b = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 64], warpsPerCTA = [2, 1], order = [1, 0]>

// Two warps along axis 0 leave 2 x 32768 f32 partials: 256 KiB, too much for
// gfx950's 160 KiB but within gfx1250's 320 KiB.
// GFX1250: tile.lds_bytes = 262144
func.func @too_big(%x: tensor<2x32768xf32, #b>) {
  // expected-error @+1 {{needs 262144 bytes of LDS but gfx950 has 163840 bytes per workgroup}}
  %s = tile.reduce(%x) axis = 0 : (tensor<2x32768xf32, #b>) -> tensor<32768xf32, #tile.slice<dim = 0, parent = #b>> {
  ^bb0(%a: f32, %c: f32):
    %t = arith.addf %a, %c : f32
    tile.reduce.return %t : f32
  }
  return
}
