// RUN: rocktile-opt %s --tile-lower-to-simt="target=gfx950" -split-input-file -verify-diagnostics


#b = #tile.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>

func.func @needs_lds(%v: f32) attributes {tile.lds_bytes = 0 : i64, tile.num_warps = 4 : i32} {
  %t = tile.splat %v : f32 -> tensor<1024xf32, #b>
  // expected-error @+1 {{needs LDS scratch: run tile-allocate-lds first}}
  %s = tile.reduce(%t) axis = 0 : (tensor<1024xf32, #b>) -> f32 {
  ^bb0(%a: f32, %c: f32):
    %u = arith.addf %a, %c : f32
    tile.reduce.return %u : f32
  }
  return
}

// -----

#b = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]>

// expected-error @+1 {{layout #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]> spreads over 32 lanes and 8 warps, but gfx950 runs this kernel as 4 warps of 64 lanes}}
func.func @wrong_wave(%v: f32) attributes {tile.lds_bytes = 0 : i64, tile.num_warps = 4 : i32} {
  %t = tile.splat %v : f32 -> tensor<1024xf32, #b>
  return
}

// -----

#rows = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 4], warpsPerCTA = [2, 1], order = [1, 0]>

func.func @no_tensor_data_mover(%p: !tile.ptr<bf16>, %i: i32) attributes {tile.lds_bytes = 2048 : i64, tile.num_warps = 2 : i32} {
  // expected-error @+1 {{tile.descriptor_load copies 2-D blocks of at least one row per warp with a Tensor Data Mover, which gfx950 lacks; load other blocks with masked tile.load}}
  %b = tile.descriptor_load %p[%i, %i] shape [%i, %i] strides [%i, %i] {tile.lds_offset = 0 : i64}
      : !tile.ptr<bf16> -> tensor<32x32xbf16, #rows>
  return
}

// -----

// A masked async load reads zeros for masked-off lanes only through a buffer
// resource: a pointer without ':range32' has none (nor, on gfx1250, any).
#copier = #tile.linear<register = [[0, 1], [0, 2], [0, 4]], lane = [[0, 8], [0, 16], [1, 0], [2, 0], [4, 8], [8, 16]], warp = [[16, 0], [32, 0]]>
#opA = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [32, 0]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 8], [0, 16]], warp = [[0, 0], [16, 0]]>
func.func @masked_async_load(%a: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %slot: i32, %m: i1) attributes {tile.lds_bytes = 12288 : i64, tile.num_warps = 4 : i32} {
  %buf = tile.local_alloc {tile.lds_offset = 0 : i64} : memref<3x64x32xbf16, #gpu.address_space<workgroup>>
  %s = tile.splat %a : !tile.ptr<bf16> -> tensor<64x32x!tile.ptr<bf16>, #copier>
  %p = tile.assume %s {contiguity = array<i64: 1, 32>, divisibility = array<i64: 64, 64>} : tensor<64x32x!tile.ptr<bf16>, #copier>
  %mask = tile.splat %m : i1 -> tensor<64x32xi1, #copier>
  // expected-error @+1 {{tile.async_load with a mask needs gfx950's async loads through a buffer resource (a ':range32' pointer), which its pointers lack}}
  tile.async_load %p, mask = %mask : tensor<64x32xi1, #copier> into %buf[%slot] : tensor<64x32x!tile.ptr<bf16>, #copier>, memref<3x64x32xbf16, #gpu.address_space<workgroup>>
  %x = tile.local_load %buf[%slot] : memref<3x64x32xbf16, #gpu.address_space<workgroup>> -> tensor<64x32xbf16, #opA>
  return
}

// -----

// fp64 sine has no AMDGPU lowering without the ROCm device library.
func.func @float64_sin(%x: f64) attributes {tile.lds_bytes = 0 : i64, tile.num_warps = 1 : i32} {
  // expected-error @+1 {{'math.sin' on fp64 is not supported on AMD GPUs yet (it needs the ROCm device library); compute in fp32}}
  %s = math.sin %x : f64
  return
}

// -----

#b = #tile.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>

// expected-error @+1 {{a kernel's arguments are scalars and pointers; 'tensor<1024xf32, #tile.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>>' has no lowering (pass a pointer and load the tile)}}
func.func @tile_argument(%x: tensor<1024xf32, #b>) attributes {tile.lds_bytes = 0 : i64, tile.num_warps = 4 : i32} {
  return
}


// -----

func.func @wait_without_tensor_copies() attributes {tile.lds_bytes = 0 : i64, tile.num_warps = 4 : i32} {
  // expected-error @+1 {{gfx950 has no Tensor Data Mover copies to wait for}}
  tile.wait_tensor_copies {outstanding = 0 : i32}
  return
}

// -----

// A lane copies 16 bytes with one instruction: pointers the compiler cannot
// prove contiguous over runs of 8 bf16 cannot be copied.
#opA = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [32, 0]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 8], [0, 16]], warp = [[0, 0], [16, 0]]>
#copier = #tile.linear<register = [[0, 1], [0, 2], [0, 4]], lane = [[0, 8], [0, 16], [1, 0], [2, 0], [4, 8], [8, 16]], warp = [[16, 0], [32, 0]]>
func.func @scattered_async_load(%a: !tile.ptr<bf16> {tile.divisibility = 16 : i32, tile.pointer_range = 32 : i32}, %slot: i32) attributes {tile.lds_bytes = 12288 : i64, tile.num_warps = 4 : i32} {
  %buf = tile.local_alloc {tile.lds_offset = 0 : i64} : memref<3x64x32xbf16, #gpu.address_space<workgroup>>
  %p = tile.splat %a : !tile.ptr<bf16> -> tensor<64x32x!tile.ptr<bf16>, #copier>
  // expected-error @+1 {{each lane copies runs of 8 elements (16 bytes) with one instruction, but the compiler proves runs of only 1}}
  tile.async_load %p into %buf[%slot] : tensor<64x32x!tile.ptr<bf16>, #copier>, memref<3x64x32xbf16, #gpu.address_space<workgroup>>
  %x = tile.local_load %buf[%slot] : memref<3x64x32xbf16, #gpu.address_space<workgroup>> -> tensor<64x32xbf16, #opA>
  return
}
