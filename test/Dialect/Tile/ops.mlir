// RUN: rocktile-opt %s | rocktile-opt | FileCheck %s
// Every tile op survives printing and parsing.

// CHECK: #blocked = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK: #slice = #tile.slice<dim = 1, parent = #blocked>

#blocked = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>

// CHECK-LABEL: func.func @all_ops
func.func @all_ops(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32, %l: !tile.ptr<i32>) {
  // CHECK: tile.program_id 0
  %pid = tile.program_id 0
  // CHECK: tile.num_programs 2
  %np = tile.num_programs 2
  // CHECK: tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  // CHECK: tile.expand_dims %{{.*}} {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %row = tile.expand_dims %r {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  // CHECK: tile.broadcast %{{.*}} : tensor<1x64xi32> -> tensor<16x64xi32>
  %b = tile.broadcast %row : tensor<1x64xi32> -> tensor<16x64xi32>
  // CHECK: tile.splat %{{.*}} : !tile.ptr<f32> -> tensor<16x64x!tile.ptr<f32>>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<16x64x!tile.ptr<f32>>
  // CHECK: tile.addptr %{{.*}}, %{{.*}} : tensor<16x64x!tile.ptr<f32>>, tensor<16x64xi32>
  %q = tile.addptr %ps, %b : tensor<16x64x!tile.ptr<f32>>, tensor<16x64xi32>
  %ns = tile.splat %n : i32 -> tensor<16x64xi32>
  %m = arith.cmpi slt, %b, %ns : tensor<16x64xi32>
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  // CHECK: tile.load %{{.*}}, mask = %{{.*}} : tensor<16x64xi1>, other = %{{.*}} : tensor<16x64x!tile.ptr<f32>> -> tensor<16x64xf32>
  %x = tile.load %q, mask = %m : tensor<16x64xi1>, other = %zero : tensor<16x64x!tile.ptr<f32>> -> tensor<16x64xf32>
  // CHECK: tile.load %{{.*}} : tensor<16x64x!tile.ptr<f32>> -> tensor<16x64xf32>
  %y = tile.load %q : tensor<16x64x!tile.ptr<f32>> -> tensor<16x64xf32>
  // CHECK: tile.load %{{.*}} {isVolatile} : !tile.ptr<f32> -> f32
  %flag = tile.load %p {isVolatile} : !tile.ptr<f32> -> f32
  // CHECK: tile.reduce(%{{.*}}) axis = 1 : (tensor<16x64xf32>) -> tensor<16xf32>
  // CHECK: tile.reduce.return %{{.*}} : f32
  %s = tile.reduce(%x) axis = 1 : (tensor<16x64xf32>) -> tensor<16xf32> {
  ^bb0(%a: f32, %c: f32):
    %t = arith.addf %a, %c : f32
    tile.reduce.return %t : f32
  }
  // CHECK: tile.reduce(%{{.*}}, %{{.*}}) axis = 0 : (tensor<64xi32>, tensor<64xi32>) -> (i32, i32)
  %v, %i = tile.reduce(%r, %r) axis = 0 : (tensor<64xi32>, tensor<64xi32>) -> (i32, i32) {
  ^bb0(%a: i32, %ai: i32, %c: i32, %ci: i32):
    %gt = arith.cmpi sgt, %a, %c : i32
    %mv = arith.select %gt, %a, %c : i32
    %mi = arith.select %gt, %ai, %ci : i32
    tile.reduce.return %mv, %mi : i32, i32
  }
  // CHECK: tile.store %{{.*}}, %{{.*}}, mask = %{{.*}} : tensor<16x64x!tile.ptr<f32>>, tensor<16x64xf32>, tensor<16x64xi1>
  tile.store %q, %y, mask = %m : tensor<16x64x!tile.ptr<f32>>, tensor<16x64xf32>, tensor<16x64xi1>
  // CHECK: tile.store %{{.*}}, %{{.*}} : !tile.ptr<f32>, f32
  %p1 = tile.addptr %p, %n : !tile.ptr<f32>, i32
  %one = arith.constant 1.0 : f32
  tile.store %p1, %one : !tile.ptr<f32>, f32
  // CHECK: tile.ptr_to_int %{{.*}} : !tile.ptr<f32> -> i64
  // CHECK: tile.int_to_ptr %{{.*}} : i64 -> !tile.ptr<i32>
  // CHECK: tile.ptr_to_int %{{.*}} : tensor<16x64x!tile.ptr<f32>> -> tensor<16x64xi64>
  // CHECK: tile.int_to_ptr %{{.*}} : tensor<16x64xi64> -> tensor<16x64x!tile.ptr<f16>>
  %address = tile.ptr_to_int %p1 : !tile.ptr<f32> -> i64
  %bits = tile.int_to_ptr %address : i64 -> !tile.ptr<i32>
  %addresses = tile.ptr_to_int %q : tensor<16x64x!tile.ptr<f32>> -> tensor<16x64xi64>
  %halves = tile.int_to_ptr %addresses : tensor<16x64xi64> -> tensor<16x64x!tile.ptr<f16>>
  // CHECK: tile.atomic_rmw <add> %{{.*}}, %{{.*}}, mask = %{{.*}} : tensor<16x64xi1> : tensor<16x64x!tile.ptr<f32>>, tensor<16x64xf32>
  %old = tile.atomic_rmw <add> %q, %y, mask = %m : tensor<16x64xi1> : tensor<16x64x!tile.ptr<f32>>, tensor<16x64xf32>
  // CHECK: tile.atomic_rmw <xchg> %{{.*}}, %{{.*}} : !tile.ptr<f32>, f32
  %prev = tile.atomic_rmw <xchg> %p1, %one : !tile.ptr<f32>, f32
  // CHECK: tile.atomic_cas %{{.*}}, %{{.*}}, %{{.*}} : !tile.ptr<i32>, i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %was = tile.atomic_cas %l, %c0, %c1 : !tile.ptr<i32>, i32
  // CHECK: tile.barrier
  tile.barrier
  // CHECK: tile.print %{{.*}}, %{{.*}} {prefix = "y: "} : tensor<16x64xf32>, i32
  tile.print %y, %n {prefix = "y: "} : tensor<16x64xf32>, i32
  // CHECK: tile.print %{{.*}} {hex, prefix = "bits: "} : tensor<16x64xf32>
  tile.print %y {prefix = "bits: ", hex} : tensor<16x64xf32>
  // CHECK: tile.assert %{{.*}} {message = "in range"} : tensor<16x64xi1>
  tile.assert %m {message = "in range"} : tensor<16x64xi1>
  // CHECK: tile.assume %{{.*}} {contiguity = array<i64: 64>, divisibility = array<i64: 16>} : tensor<64xi32>
  %hint = tile.assume %r {divisibility = array<i64: 16>, contiguity = array<i64: 64>} : tensor<64xi32>
  // CHECK: tile.assume %{{.*}} {divisibility = array<i64: 16>} : !tile.ptr<f32>
  %aligned = tile.assume %p {divisibility = array<i64: 16>} : !tile.ptr<f32>
  // CHECK: tile.trans %{{.*}} {order = array<i32: 1, 0>} : tensor<16x64xf32> -> tensor<64x16xf32>
  %tr = tile.trans %y {order = array<i32: 1, 0>} : tensor<16x64xf32> -> tensor<64x16xf32>
  // CHECK: tile.reshape %{{.*}} : tensor<64x16xf32> -> tensor<1024xf32>
  %rs = tile.reshape %tr : tensor<64x16xf32> -> tensor<1024xf32>
  // CHECK: tile.gather %{{.*}}[%{{.*}}] {axis = 0 : i32} : tensor<64x16xf32>, tensor<8x16xi32> -> tensor<8x16xf32>
  %gi = arith.constant dense<3> : tensor<8x16xi32>
  %g = tile.gather %tr[%gi] {axis = 0 : i32} : tensor<64x16xf32>, tensor<8x16xi32> -> tensor<8x16xf32>
  // CHECK: tile.scaled_upcast %{{.*}}, %{{.*}} {axis = 1 : i32} : tensor<16x32xi8>, tensor<16x2xi8> -> tensor<16x64xbf16>
  %codes = arith.constant dense<34> : tensor<16x32xi8>
  %scales = arith.constant dense<127> : tensor<16x2xi8>
  %up = tile.scaled_upcast %codes, %scales {axis = 1 : i32} : tensor<16x32xi8>, tensor<16x2xi8> -> tensor<16x64xbf16>
  return
}

// CHECK-LABEL: func.func @layouts
// CHECK-SAME: tensor<16x64xf32, #blocked>
// CHECK-SAME: tensor<16xf32, #slice>
// CHECK: tile.convert_layout %{{.*}} : tensor<16xf32, #slice> -> tensor<16xf32, #blocked1>
func.func @layouts(%a: tensor<16x64xf32, #blocked>, %b: tensor<16xf32, #tile.slice<dim = 1, parent = #blocked>>) {
  %c = tile.convert_layout %b : tensor<16xf32, #tile.slice<dim = 1, parent = #blocked>> -> tensor<16xf32, #tile.blocked<sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>>
  return
}

// A matrix product, and a linear layout (an MFMA accumulator) round-tripped.
// CHECK-LABEL: func.func @dot
// CHECK-SAME: #tile.linear<register = {{\[\[}}1, 0], [2, 0]], lane = {{\[\[}}0, 1], [0, 2], [0, 4], [0, 8], [4, 0], [8, 0]], warp = []>
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} {instr = "mfma_f32_16x16x32_bf16"} : tensor<16x32xbf16>, tensor<32x16xbf16> -> tensor<16x16xf32>
func.func @dot(%a: tensor<16x32xbf16>, %b: tensor<32x16xbf16>, %c: tensor<16x16xf32>,
               %l: tensor<16x16xf32, #tile.linear<register = [[1, 0], [2, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [4, 0], [8, 0]], warp = []>>) {
  %d = tile.dot %a, %b, %c {instr = "mfma_f32_16x16x32_bf16"} : tensor<16x32xbf16>, tensor<32x16xbf16> -> tensor<16x16xf32>
  return
}

// A batched product: one per leading index.
// CHECK-LABEL: func.func @batched_dot
// CHECK: tile.dot {{.*}} : tensor<4x16x32xbf16>, tensor<4x32x16xbf16> -> tensor<4x16x16xf32>
func.func @batched_dot(%a: tensor<4x16x32xbf16>, %b: tensor<4x32x16xbf16>, %c: tensor<4x16x16xf32>) {
  %d = tile.dot %a, %b, %c : tensor<4x16x32xbf16>, tensor<4x32x16xbf16> -> tensor<4x16x16xf32>
  return
}

// Scaled products (tl.dot_scaled on MX fp8, and fp4 bytes): E8M0 scales per 32 k;
// NVFP4: E4M3 scales per 16 k of E2M1 operands; FP6 codes one per byte.
// CHECK-LABEL: func.func @scaled_dot
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} scales %{{.*}}, %{{.*}} : tensor<32x128xf8E4M3FN>, tensor<128x32xf8E5M2>, tensor<32x4xi8>, tensor<32x4xi8> -> tensor<32x32xf32>
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} scales %{{.*}}, %{{.*}} {b_format = "e2m1"} : tensor<32x128xf8E4M3FN>, tensor<64x32xi8>
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} scales %{{.*}}, %{{.*}} {a_format = "e2m1", b_format = "e2m1"} : tensor<32x64xi8>, tensor<64x32xi8>, tensor<32x8xf8E4M3FN>, tensor<32x8xf8E4M3FN>
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} scales %{{.*}}, %{{.*}} {a_format = "e2m3", b_format = "e3m2"} : tensor<32x128xi8>, tensor<128x32xi8>
func.func @scaled_dot(%a: tensor<32x128xf8E4M3FN>, %b: tensor<128x32xf8E5M2>, %c: tensor<32x32xf32>, %s: tensor<32x4xi8>,
                      %w: tensor<64x32xi8>, %v: tensor<32x64xi8>, %t: tensor<32x8xf8E4M3FN>, %u: tensor<32x128xi8>,
                      %u2: tensor<128x32xi8>) {
  %d = tile.dot %a, %b, %c scales %s, %s : tensor<32x128xf8E4M3FN>, tensor<128x32xf8E5M2>, tensor<32x4xi8>, tensor<32x4xi8> -> tensor<32x32xf32>
  %e = tile.dot %a, %w, %c scales %s, %s {b_format = "e2m1"} : tensor<32x128xf8E4M3FN>, tensor<64x32xi8>, tensor<32x4xi8>, tensor<32x4xi8> -> tensor<32x32xf32>
  %f = tile.dot %v, %w, %c scales %t, %t {a_format = "e2m1", b_format = "e2m1"} : tensor<32x64xi8>, tensor<64x32xi8>, tensor<32x8xf8E4M3FN>, tensor<32x8xf8E4M3FN> -> tensor<32x32xf32>
  %g = tile.dot %u, %u2, %c scales %s, %s {a_format = "e2m3", b_format = "e3m2"} : tensor<32x128xi8>, tensor<128x32xi8>, tensor<32x4xi8>, tensor<32x4xi8> -> tensor<32x32xf32>
  return
}

// CHECK-LABEL: func.func @descriptor_load
// CHECK: tile.descriptor_load %{{.*}}[%{{.*}}, %{{.*}}] shape [%{{.*}}, %{{.*}}] strides [%{{.*}}, %{{.*}}] : !tile.ptr<bf16> -> tensor<64x32xbf16>
func.func @descriptor_load(%p: !tile.ptr<bf16>, %i: i32, %j: i32, %m: i32, %k: i32, %s: i32, %one: i32) {
  %b = tile.descriptor_load %p[%i, %j] shape [%m, %k] strides [%s, %one] : !tile.ptr<bf16> -> tensor<64x32xbf16>
  return
}

// CHECK-LABEL: func.func @descriptor_store
// CHECK: tile.descriptor_store %{{.*}}[%{{.*}}, %{{.*}}] shape [%{{.*}}, %{{.*}}] strides [%{{.*}}, %{{.*}}], %{{.*}} : !tile.ptr<bf16>, tensor<64x32xbf16>
func.func @descriptor_store(%p: !tile.ptr<bf16>, %i: i32, %j: i32, %m: i32, %k: i32, %s: i32, %one: i32, %v: tensor<64x32xbf16>) {
  tile.descriptor_store %p[%i, %j] shape [%m, %k] strides [%s, %one], %v : !tile.ptr<bf16>, tensor<64x32xbf16>
  return
}

// CHECK-LABEL: func.func @async_copies
// CHECK: %[[BUF:.*]] = tile.local_alloc : memref<2x64x32xbf16, #gpu.address_space<workgroup>>
// CHECK: tile.async_copy %{{.*}}[%{{.*}}, %{{.*}}] shape [%{{.*}}, %{{.*}}] strides [%{{.*}}, %{{.*}}] into %[[BUF]][%{{.*}}] : !tile.ptr<bf16>, memref<2x64x32xbf16, #gpu.address_space<workgroup>>
// CHECK: tile.async_wait {outstanding = 1 : i32}
// CHECK: tile.local_load %[[BUF]][%{{.*}}] : memref<2x64x32xbf16, #gpu.address_space<workgroup>> -> tensor<64x32xbf16>
func.func @async_copies(%p: !tile.ptr<bf16>, %i: i32, %slot: i32) {
  %buf = tile.local_alloc : memref<2x64x32xbf16, #gpu.address_space<workgroup>>
  tile.async_copy %p[%i, %i] shape [%i, %i] strides [%i, %i] into %buf[%slot] : !tile.ptr<bf16>, memref<2x64x32xbf16, #gpu.address_space<workgroup>>
  tile.async_wait {outstanding = 1 : i32}
  %b = tile.local_load %buf[%slot] : memref<2x64x32xbf16, #gpu.address_space<workgroup>> -> tensor<64x32xbf16>
  return
}

// CHECK-LABEL: func.func @local_store
// CHECK: %[[BUF:.*]] = tile.local_alloc {arrangement = #tile.shared<order = [1, 0], vec = 8, perPhase = 2, maxPhase = 4, rowPitch = 0>} : memref<2x64x32xbf16, #gpu.address_space<workgroup>>
// CHECK: tile.local_store %{{.*}}, %[[BUF]][%{{.*}}] : tensor<64x32xbf16>, memref<2x64x32xbf16, #gpu.address_space<workgroup>>
// CHECK: tile.local_alloc {arrangement = #tile.shared<order = [1, 0], vec = 1, perPhase = 1, maxPhase = 1, rowPitch = 40>}
func.func @local_store(%v: tensor<64x32xbf16>, %slot: i32) {
  %buf = tile.local_alloc {arrangement = #tile.shared<order = [1, 0], vec = 8, perPhase = 2, maxPhase = 4, rowPitch = 0>} : memref<2x64x32xbf16, #gpu.address_space<workgroup>>
  tile.local_store %v, %buf[%slot] : tensor<64x32xbf16>, memref<2x64x32xbf16, #gpu.address_space<workgroup>>
  %padded = tile.local_alloc {arrangement = #tile.shared<order = [1, 0], vec = 1, perPhase = 1, maxPhase = 1, rowPitch = 40>} : memref<1x64x32xbf16, #gpu.address_space<workgroup>>
  return
}

// CHECK-LABEL: func.func @wait_tensor_copies
// CHECK: tile.wait_tensor_copies {outstanding = 3 : i32}
func.func @wait_tensor_copies() {
  tile.wait_tensor_copies {outstanding = 3 : i32}
  return
}

// CHECK-LABEL: func.func @commit_groups
// CHECK: tile.commit_group
// CHECK-NEXT: tile.wait_groups {outstanding = 1 : i32}
// CHECK-NEXT: tile.barrier {lds}
// CHECK-NEXT: tile.barrier
func.func @commit_groups() {
  tile.commit_group
  tile.wait_groups {outstanding = 1 : i32}
  tile.barrier {lds}
  tile.barrier
  return
}

// CHECK-LABEL: func.func @async_loads
// CHECK: tile.async_load %{{.*}}, mask = %{{.*}} : tensor<64x32xi1> into %{{.*}}[%{{.*}}] : tensor<64x32x!tile.ptr<bf16>>, memref<3x64x32xbf16, #gpu.address_space<workgroup>>
// CHECK: tile.async_load %{{.*}} into %{{.*}}[%{{.*}}] : tensor<64x32x!tile.ptr<bf16>>, memref<3x64x32xbf16, #gpu.address_space<workgroup>>
func.func @async_loads(%p: tensor<64x32x!tile.ptr<bf16>>, %m: tensor<64x32xi1>, %slot: i32) {
  %buf = tile.local_alloc : memref<3x64x32xbf16, #gpu.address_space<workgroup>>
  tile.async_load %p, mask = %m : tensor<64x32xi1> into %buf[%slot] : tensor<64x32x!tile.ptr<bf16>>, memref<3x64x32xbf16, #gpu.address_space<workgroup>>
  tile.async_load %p into %buf[%slot] : tensor<64x32x!tile.ptr<bf16>>, memref<3x64x32xbf16, #gpu.address_space<workgroup>>
  return
}

// CHECK-LABEL: func.func @inline_asm
// CHECK: tile.elementwise_inline_asm "v_max_f32 $0, $1, $2" "=v,v,v" %{{.*}}, %{{.*}} {pure} : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
// CHECK: tile.elementwise_inline_asm "v_mov_b32 $0, $2\0Av_mov_b32 $1, $2" "=v,=v,v" %{{.*}} : (tensor<64xi32>) -> (tensor<64xi32>, tensor<64xi32>)
func.func @inline_asm(%a: tensor<64xf32>, %b: tensor<64xf32>, %c: tensor<64xi32>) {
  %m = tile.elementwise_inline_asm "v_max_f32 $0, $1, $2" "=v,v,v" %a, %b {pure} : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %x:2 = tile.elementwise_inline_asm "v_mov_b32 $0, $2\nv_mov_b32 $1, $2" "=v,=v,v" %c : (tensor<64xi32>) -> (tensor<64xi32>, tensor<64xi32>)
  return
}

// CHECK-LABEL: func.func @map_elementwise
// CHECK: tile.map_elementwise(%{{.*}}, %{{.*}}) pack = 2 : (tensor<64xf32>, tensor<64xi32>) -> tensor<64xf32> {
// CHECK: ^bb0(%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: i32, %{{.*}}: i32):
// CHECK: tile.map_elementwise.return %{{.*}}, %{{.*}} : f32, f32
// CHECK: tile.elementwise_inline_asm "v_not_b32 $0, $1" "=v,v" %{{.*}} {pack = 4 : i32, pure} : (tensor<64xi8>) -> tensor<64xi8>
func.func @map_elementwise(%a: tensor<64xf32>, %n: tensor<64xi32>, %c: tensor<64xi8>) {
  %r = tile.map_elementwise(%a, %n) pack = 2 : (tensor<64xf32>, tensor<64xi32>) -> tensor<64xf32> {
  ^bb0(%a0: f32, %a1: f32, %n0: i32, %n1: i32):
    %f0 = arith.sitofp %n0 : i32 to f32
    %f1 = arith.sitofp %n1 : i32 to f32
    %r0 = arith.mulf %a0, %f0 : f32
    %r1 = arith.mulf %a1, %f1 : f32
    tile.map_elementwise.return %r0, %r1 : f32, f32
  }
  %m = tile.elementwise_inline_asm "v_not_b32 $0, $1" "=v,v" %c {pure, pack = 4 : i32} : (tensor<64xi8>) -> tensor<64xi8>
  return
}

// CHECK-LABEL: func.func @realtime
// CHECK: tile.realtime : i64
func.func @realtime() -> i64 {
  %t = tile.realtime : i64
  return %t : i64
}

// CHECK-LABEL: func.func @sub_blocks
// CHECK: tile.local_load %{{.*}}[%{{.*}}] {offsets = array<i64: 32, 0>}
// CHECK: tile.local_store %{{.*}}, %{{.*}}[%{{.*}}] {offsets = array<i64: 0, 32>}
func.func @sub_blocks(%s: i32) {
  %buf = tile.local_alloc : memref<1x64x64xbf16, #gpu.address_space<workgroup>>
  %x = tile.local_load %buf[%s] {offsets = array<i64: 32, 0>} : memref<1x64x64xbf16, #gpu.address_space<workgroup>> -> tensor<32x64xbf16>
  %y = tile.local_load %buf[%s] {offsets = array<i64: 0, 0>} : memref<1x64x64xbf16, #gpu.address_space<workgroup>> -> tensor<64x32xbf16>
  tile.local_store %y, %buf[%s] {offsets = array<i64: 0, 32>} : tensor<64x32xbf16>, memref<1x64x64xbf16, #gpu.address_space<workgroup>>
  return
}
