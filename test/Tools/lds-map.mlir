// rocktile-lds-map prints the arrangement the compiler chooses for staging a
// GEMM's row-major B (64x128 bf16, K down the rows) for gfx950's
// v_mfma_f32_16x16x32_bf16, and the bank of every lane of the first write
// and read: none shared within a phase. The rows are written as loaded (128
// bits along N) and read with transpose reads, at the addresses the lanes
// supply. Row-major, unswizzled, with plain reads, the operand reads of 16
// lanes (16 rows of one column) meet on 4 banks.
// RUN: rocktile-lds-map --target=gfx950 --from='tensor<64x128xbf16, #tile.blocked<sizePerThread = [4, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>>' --to='tensor<64x128xbf16, #tile.linear<register = [[1, 0], [2, 0], [4, 0], [32, 0], [0, 32], [0, 64]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [8, 0], [16, 0]], warp = [[0, 0], [0, 16]]>>' | FileCheck %s
// RUN: rocktile-lds-map --target=gfx950 --row-major --from='tensor<64x128xbf16, #tile.blocked<sizePerThread = [4, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>>' --to='tensor<64x128xbf16, #tile.linear<register = [[1, 0], [2, 0], [4, 0], [32, 0], [0, 32], [0, 64]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [8, 0], [16, 0]], warp = [[0, 0], [0, 16]]>>' | FileCheck %s --check-prefix=PLAIN
// RUN: not rocktile-lds-map --from='tensor<8xf32>' --to='tensor<8xf32>' 2>&1 | FileCheck %s --check-prefix=ERR

// CHECK: LDS on gfx950 (64 banks of 4 bytes): order = [1, 0], vec = 8, {{.*}}, transposed reads
// CHECK: write: 16-byte accesses, 16 per workgroup, 0 conflict cycles
// CHECK: phase 0 (lanes 0-15), lane on each bank:
// CHECK-NOT: x
// CHECK: read (transpose reads): 8-byte accesses, 64 per workgroup, 0 conflict cycles
// CHECK: phase 0 (lanes 0-31), lane on each bank:
// CHECK-NEXT: bank  0-15:    0    0    1    1    2    2    3    3
// CHECK-NOT: x

// PLAIN: LDS on gfx950 (64 banks of 4 bytes): order = [1, 0], vec = 1, maxPhase = 1, phaseShifts = []
// PLAIN: read: 2-byte accesses, 256 per workgroup, 768 conflict cycles
// PLAIN: phase 0 (lanes 0-63)
// PLAIN-NEXT: bank  0-15:   4x   4x   4x   4x   4x   4x   4x   4x    .

// ERR: error: expected a tensor type with a #tile layout, got 'tensor<8xf32>'
