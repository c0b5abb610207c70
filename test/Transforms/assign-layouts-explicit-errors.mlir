// RUN: rocktile-opt %s -split-input-file --tile-assign-layouts="target=gfx1250 num-warps=4" -verify-diagnostics

// The layouts of a kernel of the explicit level must fit the target's
// waves and the kernel's warps; the error is at the op making the tile.

func.func @lanes_of_another_wave(%x: !tile.ptr<i32>) {
  // expected-error @+1 {{the layout of this tile places it on 64 lanes per warp, but a gfx1250 wave has 32: a BlockedLayout's threads_per_warp must multiply to 32}}
  %r = tile.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32, #tile.blocked<sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>>
  return
}

// -----

func.func @other_warps(%x: !tile.ptr<i32>) {
  // expected-error @+1 {{the layout of this tile places it on 2 warps, but the kernel is compiled for num_warps=4: a BlockedLayout's warps_per_cta must multiply to 4}}
  %r = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]>>
  return
}

// -----

// A slice is checked through its parent.
func.func @slice_of_other_warps(%x: !tile.ptr<i32>) {
  // expected-error @+1 {{places it on 8 warps, but the kernel is compiled for num_warps=4: a BlockedLayout's warps_per_cta must multiply to 4}}
  %r = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #tile.slice<dim = 0, parent = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [8, 1], order = [1, 0]>>>
  return
}

// -----

func.func @linear_lanes(%x: !tile.ptr<i32>) {
  // expected-error @+1 {{places it on 16 lanes per warp, but a gfx1250 wave has 32: a linear layout needs 5 lane bases}}
  %r = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #tile.linear<register = [[16]], lane = [[1], [2], [4], [8]], warp = [[32], [0]]>>
  return
}
