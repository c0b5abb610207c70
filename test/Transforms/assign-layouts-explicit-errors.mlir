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

// -----

// The async loads write a wave's runs consecutively: a padded
// block has gaps they cannot leave.
#blk = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
func.func @padded_async_load(%a: !tile.ptr<bf16>) {
  %c0 = arith.constant 0 : i32
  %buf = tile.local_alloc {arrangement = #tile.shared<order = [1, 0], vec = 1, perPhase = 1, maxPhase = 1, rowPitch = 72>} : memref<1x64x64xbf16, #gpu.address_space<workgroup>>
  %p = tile.splat %a : !tile.ptr<bf16> -> tensor<64x64x!tile.ptr<bf16>, #blk>
  // expected-error @+1 {{gfx1250's async copies write each wave's lanes' 16-byte runs consecutively, which cannot fill this shared layout}}
  tile.async_load %p into %buf[%c0] : tensor<64x64x!tile.ptr<bf16>, #blk>, memref<1x64x64xbf16, #gpu.address_space<workgroup>>
  return
}
