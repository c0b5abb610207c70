// RUN: rocktile-opt %s -split-input-file --tile-lower-to-simt="target=gfx1250" | FileCheck %s
// What lowers differently on gfx1250 (wave32, WMMA); the rest is checked for
// gfx950 in lower-to-simt.mlir.

// A row-major B operand (N-contiguous) written to LDS as whole rows and read
// back with ds_load_tr16_b128: MLIR 22's amdgpu.transpose_load takes only
// gfx950's forms, so the read is rocdl's, on an LDS pointer formed from the
// view (the chain the emulator reads back as a view and an index).
// CHECK-LABEL: gpu.func @transposed_operand
// CHECK: gpu.barrier
// CHECK-COUNT-8: vector.store {{.*}} {alignment = 16 : i64} : {{.*}} vector<8xbf16>
// CHECK: gpu.barrier
// CHECK: %[[FIRST:.*]] = memref.extract_aligned_pointer_as_index %[[VIEW:.*]] : memref<8192xbf16, #gpu.address_space<workgroup>> -> index
// CHECK: %[[ADDRESS:.*]] = arith.index_cast %[[FIRST]] : index to i64
// CHECK: %[[BASE:.*]] = llvm.inttoptr %[[ADDRESS]] : i64 to !llvm.ptr<3>
// CHECK: %[[PTR:.*]] = llvm.getelementptr %[[BASE]][%{{.*}}] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i16
// CHECK: rocdl.ds.load.tr16.b128 %[[PTR]] : !llvm.ptr<3> -> vector<8xbf16>
// CHECK-COUNT-7: rocdl.ds.load.tr16.b128
// CHECK-NOT: vector.load
// CHECK-NOT: amdgpu.transpose_load
// CHECK: gpu.return
#rowsB = #tile.blocked<sizePerThread = [8, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#opB = #tile.linear<register = [[1, 0], [2, 0], [4, 0], [16, 0], [32, 0], [0, 32], [0, 64]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [8, 0]], warp = [[0, 0], [0, 16]]>
func.func @transposed_operand(%v: bf16, %out: !tile.ptr<bf16>) attributes {tile.lds_bytes = 16384 : i64, tile.num_warps = 4 : i32} {
  %a = tile.splat %v : bf16 -> tensor<64x128xbf16, #rowsB>
  %b = tile.convert_layout %a {tile.lds_offset = 0 : i64} : tensor<64x128xbf16, #rowsB> -> tensor<64x128xbf16, #opB>
  %p = tile.splat %out : !tile.ptr<bf16> -> tensor<64x128x!tile.ptr<bf16>, #opB>
  tile.store %p, %b : tensor<64x128x!tile.ptr<bf16>, #opB>, tensor<64x128xbf16, #opB>
  return
}
