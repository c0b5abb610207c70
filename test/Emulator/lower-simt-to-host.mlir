// RUN: rocktile-opt %s -split-input-file --tile-lower-simt-to-host="wave-size=64" | FileCheck %s
// RUN: rocktile-opt %s -split-input-file --tile-lower-simt-to-host="wave-size=32" | FileCheck %s --check-prefix=WAVE32

// A workgroup becomes a host function; segments between cross-lane ops and
// barriers are loops over the 128 threads; the uniform row offset is
// computed once; accesses are bounds-checked and report their source site.
// CHECK: module attributes {rocktile.emulator_sites = [{access_bytes = 4 : i64, arg = 0 : i64, element_bytes = 4 : i64, kind = "load", lds_offset = 0 : i64, location = "kernel.py:3:7", message = ""}, {access_bytes = 4 : i64, arg = 0 : i64, element_bytes = 4 : i64, kind = "store"
// CHECK-DAG: func.func private @rocktile_emu_fault(i64, i64, i64, i64, i64, i64)
// CHECK-DAG: func.func private @rocktile_emu_ds_swizzle(i64, i64, i64, i64, i64, i64, i64)
// CHECK-LABEL: func.func @k_workgroup(
// CHECK-SAME: %[[CTX:[^:]*]]: index, %[[BX:[^:]*]]: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index,
// CHECK-SAME: %[[X:[^:]*]]: memref<?xf32, #gpu.address_space<global>>, %[[LDS:[^:]*]]: memref<8xi8, #gpu.address_space<workgroup>>)
// CHECK: memref.alloca() : memref<128xf32>
// CHECK: %[[ROW:.*]] = arith.muli %[[BX]]
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[I:.*]] = arith.addi %[[ROW]], %[[T]]
// CHECK: memref.dim %[[X]]
// CHECK: scf.if %{{.*}} -> (f32) {
// CHECK: func.call @rocktile_emu_global_access
// CHECK-NEXT: memref.load %[[X]][%[[I]]]
// CHECK: } else {
// CHECK: func.call @rocktile_emu_fault
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[T]]] : memref<128xf32>
// CHECK: call @rocktile_emu_ds_swizzle
// CHECK: memref.view %[[LDS]]
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %[[X]]
// CHECK-NOT: memref.dealloc
// CHECK: return
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%x: memref<?xf32, #gpu.address_space<global>>) workgroup(%lds : memref<8xi8, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c128 = arith.constant 128 : index
      %b = gpu.block_id x
      %row = arith.muli %b, %c128 : index
      %t = gpu.thread_id x
      %i = arith.addi %row, %t : index
      %v = memref.load %x[%i] : memref<?xf32, #gpu.address_space<global>> loc("kernel.py":3:7)
      %w = amdgpu.swizzle_bitmode %v 31 0 4 : f32
      gpu.barrier
      %view = memref.view %lds[%c0][] : memref<8xi8, #gpu.address_space<workgroup>> to memref<2xf32, #gpu.address_space<workgroup>>
      %s = arith.addf %v, %w : f32
      memref.store %s, %x[%i] : memref<?xf32, #gpu.address_space<global>>
      gpu.return
    }
  }
}

// -----

// Lanes of a wave run each instruction together; a segment runs its threads
// one after another. So a global store begins a new thread loop after the
// loads before it (no lane may store before every lane has loaded), and the
// load after it begins another (none may load before every lane has
// stored); the loaded value crosses in a per-thread array.
// CHECK-LABEL: func.func @read_modify_write_workgroup(
// CHECK: scf.for %[[T0:.*]] =
// CHECK: memref.load %{{.*}} : memref<?xi32, #gpu.address_space<global>>
// CHECK: memref.store %{{.*}}, %[[LOADED:.*]][%[[T0]]] : memref<64xi32>
// CHECK: scf.for %[[T1:.*]] =
// CHECK: memref.load %[[LOADED]][%[[T1]]]
// CHECK: memref.store %{{.*}} : memref<?xi32, #gpu.address_space<global>>
// CHECK: scf.for %[[T2:.*]] =
// CHECK: memref.load %{{.*}} : memref<?xi32, #gpu.address_space<global>>
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @read_modify_write(%x: memref<?xi32, #gpu.address_space<global>>)
        kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : i32
      %v = memref.load %x[%c0] : memref<?xi32, #gpu.address_space<global>>
      %w = arith.addi %v, %c1 : i32
      memref.store %w, %x[%c0] : memref<?xi32, #gpu.address_space<global>>
      %u = memref.load %x[%c0] : memref<?xi32, #gpu.address_space<global>>
      %t = gpu.thread_id x
      memref.store %u, %x[%t] : memref<?xi32, #gpu.address_space<global>>
      gpu.return
    }
  }
}

// -----

// A loop around a barrier whose bound the threads compute each for itself
// runs on the host with thread 0's bound; every thread's is checked against
// it, a disagreement a fault at the loop (a "divergent-loop" site). (From the
// tile language only a race can make such a bound differ: a wave's lanes
// load a scalar together.)
// CHECK: module attributes {rocktile.emulator_sites = [{{.*}}kind = "divergent-loop", {{.*}}location = "kernel.py:9:3"
// CHECK-LABEL: func.func @per_thread_bound_workgroup(
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step
// CHECK: call @rocktile_emu_lds_barrier
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @per_thread_bound(%x: memref<?xindex, #gpu.address_space<global>>)
        kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %t = gpu.thread_id x
      %n = memref.load %x[%t] : memref<?xindex, #gpu.address_space<global>>
      scf.for %i = %c0 to %n step %c1 {
        gpu.barrier
      } loc("kernel.py":9:3)
      gpu.return
    }
  }
}

// -----

// Float to int32 saturates on the chips (v_cvt_i32_f32: clamped, NaN 0) where
// fptosi is poison out of range: the emulator clamps in f64 first.
// CHECK-LABEL: func.func @to_int_workgroup(
// CHECK: %[[WIDE:.*]] = arith.extf %{{.*}} : f32 to f64
// CHECK: %[[LO:.*]] = arith.maxnumf %[[WIDE]], %{{.*}} : f64
// CHECK: %[[CLAMPED:.*]] = arith.minnumf %[[LO]], %{{.*}} : f64
// CHECK: %[[INT:.*]] = arith.fptosi %[[CLAMPED]] : f64 to i32
// CHECK: %[[NAN:.*]] = arith.cmpf uno
// CHECK: arith.select %[[NAN]], %{{.*}}, %[[INT]] : i32
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @to_int(%x: memref<?xf32, #gpu.address_space<global>>, %y: memref<?xi32, #gpu.address_space<global>>)
        kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %t = gpu.thread_id x
      %v = memref.load %x[%t] : memref<?xf32, #gpu.address_space<global>>
      %i = arith.fptosi %v : f32 to i32
      memref.store %i, %y[%t] : memref<?xi32, #gpu.address_space<global>>
      gpu.return
    }
  }
}

// -----

// Integer division by a runtime value: a zero divisor is a fault at the
// division (a "check" site; the host then divides by 1 instead of trapping),
// and INT_MIN / -1 divides by 1 (the GPU's wrapped INT_MIN). A constant
// divisor other than 0 and -1 is left alone.
// CHECK: {{.*}}kind = "check", {{.*}}location = "kernel.py:4:9", message = "integer division by zero"
// CHECK-LABEL: func.func @divide_workgroup(
// CHECK: %[[ZERO:.*]] = arith.cmpi eq, %[[D:arg[0-9]+]], %{{.*}} : i32
// CHECK: %[[SAFE:.*]] = arith.select %[[ZERO]], %{{.*}}, %[[D]] : i32
// CHECK: scf.for
// CHECK: %[[SAFER:.*]] = arith.select %{{.*}}, %{{.*}}, %[[SAFE]] : i32
// CHECK: %[[Q:.*]] = arith.divsi %{{.*}}, %[[SAFER]] : i32
// CHECK: arith.divsi %[[Q]], %c7{{.*}} : i32
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @divide(%x: memref<?xi32, #gpu.address_space<global>>, %d: i32)
        kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %t = gpu.thread_id x
      %c7 = arith.constant 7 : i32
      %v = memref.load %x[%t] : memref<?xi32, #gpu.address_space<global>>
      %q = arith.divsi %v, %d : i32 loc("kernel.py":4:9)
      %r = arith.divsi %q, %c7 : i32
      memref.store %r, %x[%t] : memref<?xi32, #gpu.address_space<global>>
      gpu.return
    }
  }
}

// -----

// A loop with uniform bounds around a cross-lane op runs on the host; its
// carried value lives in a per-thread array across iterations.
// CHECK-LABEL: func.func @loop_workgroup(
// CHECK: scf.for %[[T0:.*]] =
// CHECK-NEXT: memref.store %{{.*}}, %[[CARRIED:.*]][%[[T0]]] : memref<64xf32>
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step
// CHECK: memref.extract_aligned_pointer_as_index %[[CARRIED]]
// CHECK: func.call @rocktile_emu_dpp(
// CHECK: memref.load %[[CARRIED]]
// CHECK: memref.store %{{.*}}, %[[CARRIED]]
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @loop(%x: memref<?xf32, #gpu.address_space<global>>, %n: index) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %zero = arith.constant 0.0 : f32
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
        %w = rocdl.update.dpp %acc, %acc with 177, 15, 15, true : f32
        %s = arith.addf %w, %acc : f32
        scf.yield %s : f32
      }
      %t = gpu.thread_id x
      memref.store %r, %x[%t] : memref<?xf32, #gpu.address_space<global>>
      gpu.return
    }
  }
}

// -----

// A matrix instruction is lockstep: each thread's A, B and C vectors go to
// per-thread arrays, and one call applies the emulator's MFMA semantics
// (instruction 0 of its table, bf16 operands) to every wave.
// CHECK-LABEL: func.func @mma_workgroup(
// CHECK: scf.for
// CHECK: memref.store %{{.*}} : memref<128xvector<8xbf16>>
// CHECK: call @rocktile_emu_matrix(%c0_i64, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c128_i64, %c0_i64{{.*}})
// CHECK: scf.for
// CHECK: memref.load %{{.*}} : memref<128xvector<4xf32>>
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @mma(%x: memref<?xvector<4xf32>, #gpu.address_space<global>>, %y: memref<?xvector<8xbf16>, #gpu.address_space<global>>)
        kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %t = gpu.thread_id x
      %a = memref.load %y[%t] : memref<?xvector<8xbf16>, #gpu.address_space<global>>
      %c = memref.load %x[%t] : memref<?xvector<4xf32>, #gpu.address_space<global>>
      %d = amdgpu.mfma 16x16x32 %a * %a + %c blgp = none : vector<8xbf16>, vector<8xbf16>, vector<4xf32>
      memref.store %d, %x[%t] : memref<?xvector<4xf32>, #gpu.address_space<global>>
      gpu.return
    }
  }
}

// -----

// A scaled WMMA (NVFP4: E2M1 operands, E4M3 scales per 16 k): the same call
// with the scale arrays, the scale format (1: E4M3), and per operand its
// scale bytes per lane (8) and first scale lane (0, 16), for gfx1250's
// instruction 11 (wmma_f32_16x16x128_f8) with E2M1 (6) operands.
// WAVE32-LABEL: func.func @scaled_wmma_workgroup(
// WAVE32: call @rocktile_emu_scaled_matrix(%c11_i64, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c128_i64{{.*}}, %c6_i64{{.*}}, %c6_i64{{.*}}, %c1_i64{{.*}}, %c8_i64{{.*}}, %c0_i64{{.*}}, %c8_i64{{.*}}, %c16_i64{{.*}})
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @scaled_wmma(%x: memref<?xvector<8xf32>, #gpu.address_space<global>>, %y: memref<?xvector<64xf4E2M1FN>, #gpu.address_space<global>>,
                          %z: memref<?xvector<8xf8E4M3FN>, #gpu.address_space<global>>)
        kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %t = gpu.thread_id x
      %a = memref.load %y[%t] : memref<?xvector<64xf4E2M1FN>, #gpu.address_space<global>>
      %s = memref.load %z[%t] : memref<?xvector<8xf8E4M3FN>, #gpu.address_space<global>>
      %c = memref.load %x[%t] : memref<?xvector<8xf32>, #gpu.address_space<global>>
      %d = amdgpu.scaled_wmma 16x16x128 (%s * %a) * (%s * %a) + %c {a_first_scale_lane = 0 : i32, b_first_scale_lane = 16 : i32}
          : vector<8xf8E4M3FN>, vector<64xf4E2M1FN>, vector<8xf8E4M3FN>, vector<64xf4E2M1FN>, vector<8xf32>
      memref.store %d, %x[%t] : memref<?xvector<8xf32>, #gpu.address_space<global>>
      gpu.return
    }
  }
}

// -----

// gfx1250's scaled conversion of E2M1 codes reads its scales from other
// lanes: one call for the workgroup with the codes, scale words and result
// arrays, the result format (0: BF16), the block size and the first scale
// lane and byte.
// WAVE32-LABEL: func.func @scaled_ext_matrix_workgroup(
// WAVE32: call @rocktile_emu_scaled_ext_matrix(%{{.*}}, %{{.*}}, %{{.*}}, %c128_i64{{.*}}, %c32_i64{{.*}}, %c0_i64{{.*}}, %c32_i64{{.*}}, %c16_i64{{.*}}, %c2_i64{{.*}})
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @scaled_ext_matrix(%x: memref<?xvector<8xf4E2M1FN>, #gpu.address_space<global>>,
                                %y: memref<?xvector<4xf8E8M0FNU>, #gpu.address_space<global>>,
                                %z: memref<?xvector<8xbf16>, #gpu.address_space<global>>)
        kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %t = gpu.thread_id x
      %codes = memref.load %x[%t] : memref<?xvector<8xf4E2M1FN>, #gpu.address_space<global>>
      %scales = memref.load %y[%t] : memref<?xvector<4xf8E8M0FNU>, #gpu.address_space<global>>
      %v = amdgpu.scaled_ext_packed_matrix %codes scale(%scales) blockSize(32) firstScaleLane(16) firstScaleByte(2)
          : vector<8xf4E2M1FN>, vector<4xf8E8M0FNU> -> vector<8xbf16>
      memref.store %v, %z[%t] : memref<?xvector<8xbf16>, #gpu.address_space<global>>
      gpu.return
    }
  }
}

// -----

// A transpose read is each thread's checked LDS read at its own address
// (stored to a per-thread array), then one call that exchanges the elements
// between the lanes of each quarter wave as the ISA says.
// CHECK-LABEL: func.func @transpose_read_workgroup(
// CHECK: scf.for
// CHECK: call @rocktile_emu_lds_access
// CHECK: vector.load %{{.*}} : memref<256xbf16, #gpu.address_space<workgroup>>, vector<4xbf16>
// CHECK: memref.store %{{.*}} : memref<128xvector<4xbf16>>
// CHECK: call @rocktile_emu_lds_transpose(%{{.*}}, %{{.*}}, %c128_i64, %c2_i64, %c4_i64, %c16_i64)
// CHECK-NOT: amdgpu.transpose_load
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @transpose_read(%x: memref<?xvector<4xbf16>, #gpu.address_space<global>>)
        workgroup(%lds: memref<256xbf16, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %t = gpu.thread_id x
      %c2 = arith.constant 2 : index
      %i = arith.muli %t, %c2 : index
      %v = amdgpu.transpose_load %lds[%i] : memref<256xbf16, #gpu.address_space<workgroup>> -> vector<4xbf16>
      memref.store %v, %x[%t] : memref<?xvector<4xbf16>, #gpu.address_space<global>>
      gpu.return
    }
  }
}

// -----

// gfx1250's transpose reads are rocdl ops on an LDS pointer formed from a
// view: the emulator reads the view and the index back from the pointer's
// chain, then does the same checked read and an exchange in groups of 8
// lanes (a quarter of wave32), 8 elements each; the 8-bit form's dwords are
// the bytes it read.
// WAVE32-LABEL: func.func @rocdl_transpose_read_workgroup(
// WAVE32: vector.load %{{.*}} : memref<256xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// WAVE32: call @rocktile_emu_lds_transpose(%{{.*}}, %{{.*}}, %c64_i64{{.*}}, %c2_i64{{.*}}, %c8_i64{{.*}}, %c8_i64{{.*}})
// WAVE32: vector.load %{{.*}} : memref<512xi8, #gpu.address_space<workgroup>>, vector<8xi8>
// WAVE32: call @rocktile_emu_lds_transpose(%{{.*}}, %{{.*}}, %c64_i64{{.*}}, %c1_i64{{.*}}, %c8_i64{{.*}}, %c8_i64{{.*}})
// WAVE32: vector.bitcast %{{.*}} : vector<8xi8> to vector<2xi32>
// WAVE32-NOT: rocdl.ds.load
// WAVE32-NOT: llvm.inttoptr
// WAVE32-NOT: llvm.getelementptr
// WAVE32: return
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @rocdl_transpose_read(%x: memref<?xvector<8xbf16>, #gpu.address_space<global>>,
                                   %y: memref<?xvector<2xi32>, #gpu.address_space<global>>)
        workgroup(%lds: memref<256xbf16, #gpu.address_space<workgroup>>, %bytes: memref<512xi8, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %t = gpu.thread_id x
      %c4 = arith.constant 4 : index
      %i = arith.muli %t, %c4 : index
      %first = memref.extract_aligned_pointer_as_index %lds : memref<256xbf16, #gpu.address_space<workgroup>> -> index
      %address = arith.index_cast %first : index to i64
      %base = llvm.inttoptr %address : i64 to !llvm.ptr<3>
      %at = arith.index_cast %i : index to i64
      %p = llvm.getelementptr %base[%at] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i16
      %v = rocdl.ds.load.tr16.b128 %p : !llvm.ptr<3> -> vector<8xbf16>
      memref.store %v, %x[%t] : memref<?xvector<8xbf16>, #gpu.address_space<global>>
      %first8 = memref.extract_aligned_pointer_as_index %bytes : memref<512xi8, #gpu.address_space<workgroup>> -> index
      %address8 = arith.index_cast %first8 : index to i64
      %base8 = llvm.inttoptr %address8 : i64 to !llvm.ptr<3>
      %q = llvm.getelementptr %base8[%at] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
      %w = rocdl.ds.load.tr8.b64 %q : !llvm.ptr<3> -> vector<2xi32>
      memref.store %w, %y[%t] : memref<?xvector<2xi32>, #gpu.address_space<global>>
      gpu.return
    }
  }
}

// -----

// A store through a buffer resource at 2^31 bytes or beyond is a masked-off
// lane's, which the hardware drops: no fault. Out of range below that, it
// is a fault (the same rule as for loads, which read zeros there).
// CHECK-LABEL: func.func @buffer_store_workgroup(
// CHECK: %[[AT:.*]] = arith.select
// CHECK: %[[BYTE:.*]] = arith.muli %[[AT]], %c4
// CHECK: %[[NEAR:.*]] = arith.cmpi slt, %[[BYTE]], %c2147483648
// CHECK: %[[OK:.*]] = arith.andi %{{.*}}, %[[NEAR]] : i1
// CHECK: scf.if %[[OK]] {
// CHECK: func.call @rocktile_emu_global_access
// CHECK-NEXT: memref.store
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.if %[[NEAR]] {
// CHECK: func.call @rocktile_emu_fault
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @buffer_store(%x: memref<?xf32, #gpu.address_space<global>>, %v: f32)
        kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %t = gpu.thread_id x
      %buf = amdgpu.fat_raw_buffer_cast %x : memref<?xf32, #gpu.address_space<global>> to memref<?xf32, #amdgpu.address_space<fat_raw_buffer>>
      %c32 = arith.constant 32 : index
      %far = arith.constant 536870912 : index
      %in = arith.cmpi ult, %t, %c32 : index
      %at = arith.select %in, %t, %far : index
      memref.store %v, %buf[%at] : memref<?xf32, #amdgpu.address_space<fat_raw_buffer>>
      gpu.return
    }
  }
}

// -----

// A buffer resource based further into an argument (a pointer the threads
// share, %row elements on): an access through it is checked against the
// whole argument at %row plus its index, while whether it was masked off
// is read from its index into the view.
// CHECK-LABEL: func.func @shifted_buffer_workgroup(
// CHECK-SAME: %{{.*}}: memref<?xf32, #gpu.address_space<global>>, %[[ROW:.*]]: index)
// CHECK-NOT: fat_raw_buffer_cast
// CHECK-NOT: memref.reinterpret_cast
// CHECK: %[[AT:.*]] = arith.select
// CHECK: %[[ARG:.*]] = arith.addi %[[ROW]], %[[AT]] : index
// CHECK: %[[SIZE:.*]] = memref.dim %[[X:.*]], %c0
// CHECK: arith.cmpi sge, %[[ARG]], %c0
// CHECK: %[[BYTE:.*]] = arith.muli %[[AT]], %c4
// CHECK: %[[NEAR:.*]] = arith.cmpi slt, %[[BYTE]], %c2147483648
// CHECK: scf.if
// CHECK: func.call @rocktile_emu_global_access
// CHECK-NEXT: memref.load %[[X]][%[[ARG]]]
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @shifted_buffer(%x: memref<?xf32, #gpu.address_space<global>>, %row: index)
        kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %t = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %n = memref.dim %x, %c0 : memref<?xf32, #gpu.address_space<global>>
      %rest = arith.subi %n, %row : index
      %view = memref.reinterpret_cast %x to offset: [%row], sizes: [%rest], strides: [1] : memref<?xf32, #gpu.address_space<global>> to memref<?xf32, strided<[1], offset: ?>, #gpu.address_space<global>>
      %valid = arith.constant 2147483647 : i64
      %buf = amdgpu.fat_raw_buffer_cast %view validBytes(%valid) resetOffset : memref<?xf32, strided<[1], offset: ?>, #gpu.address_space<global>> to memref<?xf32, #amdgpu.address_space<fat_raw_buffer>>
      %c32 = arith.constant 32 : index
      %far = arith.constant 536870912 : index
      %in = arith.cmpi ult, %t, %c32 : index
      %at = arith.select %in, %t, %far : index
      %v = memref.load %buf[%at] : memref<?xf32, #amdgpu.address_space<fat_raw_buffer>>
      memref.store %v, %x[%t] : memref<?xf32, #gpu.address_space<global>>
      gpu.return
    }
  }
}

// -----

// A workgroup id read under a per-thread `if` moves to the entry, where it
// is the host function's argument: the thread loop's `if` uses that.
// CHECK-LABEL: func.func @nested_id_workgroup(
// CHECK-SAME: %[[CTX:[^:]*]]: index, %[[BX:[^:]*]]: index, %[[BY:[^:]*]]: index
// CHECK: scf.for
// CHECK: scf.if
// CHECK: arith.index_cast %[[BY]]
// CHECK-NOT: gpu.block_id
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @nested_id(%x: memref<?xi32, #gpu.address_space<global>>)
        kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %t = gpu.thread_id x
      %c8 = arith.constant 8 : index
      %small = arith.cmpi ult, %t, %c8 : index
      scf.if %small {
        %by = gpu.block_id y
        %v = arith.index_cast %by : index to i32
        memref.store %v, %x[%t] : memref<?xi32, #gpu.address_space<global>>
      }
      gpu.return
    }
  }
}

// -----

// A loop holding a cross-lane op whose bound each thread computes (a length
// loaded from memory): the host loop runs thread 0's bound, after a runtime
// check that every thread has the same (a fault at the loop otherwise).
// CHECK-LABEL: func.func @loaded_bound_workgroup(
// CHECK: scf.for
// CHECK: memref.store %{{.*}} : memref<64xindex>
// CHECK: %[[N:.*]] = call @rocktile_emu_shared_value(%{{.*}}, %{{.*}}, %{{.*}}, %c64_i64, %c8_i64)
// CHECK: %[[UB:.*]] = arith.index_cast %[[N]] : i64 to index
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[UB]]
// CHECK: call @rocktile_emu_ds_swizzle
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @loaded_bound(%x: memref<?xindex, #gpu.address_space<global>>, %v: f32)
        kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %n = memref.load %x[%c0] : memref<?xindex, #gpu.address_space<global>>
      scf.for %i = %c0 to %n step %c1 {
        %w = amdgpu.swizzle_bitmode %v 31 0 4 : f32
      }
      gpu.return
    }
  }
}

// -----

// The GPU's constant-rate clock is the host's steady clock.
// CHECK-LABEL: func.func @clock_workgroup(
// CHECK: %[[T:.*]] = func.call @rocktile_emu_realtime() : () -> i64
// CHECK: memref.store %[[T]]
// CHECK-NOT: llvm.call_intrinsic
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @clock(%x: memref<?xi64, #gpu.address_space<global>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %t = gpu.thread_id x
      %now = llvm.call_intrinsic "llvm.readsteadycounter"() : () -> i64
      memref.store %now, %x[%t] : memref<?xi64, #gpu.address_space<global>>
      gpu.return
    }
  }
}

// -----

// Memory from address 0 is made once per workgroup; an access through it
// asks the runtime about its address (bytes = index * 4), since only the
// address says what it reaches (its sites carry arg = -3), passing the
// site, the thread and the kind (0: a read) to check and count an access
// that lands in a buffer argument as one through it.
// CHECK: rocktile.emulator_sites = [{access_bytes = 4 : i64, arg = -3 : i64, element_bytes = 4 : i64, kind = "load"
// CHECK-LABEL: func.func @addressed_workgroup(
// CHECK: %[[FLAT:.*]] = builtin.unrealized_conversion_cast to memref<?xf32, #gpu.address_space<global>> {rocktile.flat_memory}
// CHECK: scf.for
// CHECK: %[[BYTES:.*]] = arith.muli %{{.*}}, %c4{{.*}} : index
// CHECK: %[[ADDRESS:.*]] = arith.index_cast %[[BYTES]] : index to i64
// CHECK: %[[TID:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK: %[[OK:.*]] = func.call @rocktile_emu_addressed_access(%{{[0-9]+}}, %c0_i64{{.*}}, %[[ADDRESS]], %c4_i64{{.*}}, %[[TID]], %c0_i64{{.*}})
// CHECK: arith.cmpi ne, %[[OK]]
// CHECK: memref.load %[[FLAT]]
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @addressed(%address: i64, %out: memref<?xf32, #gpu.address_space<global>>)
        kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %flat = builtin.unrealized_conversion_cast to memref<?xf32, #gpu.address_space<global>> {rocktile.flat_memory}
      %t = gpu.thread_id x
      %index = arith.index_cast %address : i64 to index
      %c2 = arith.constant 2 : index
      %first = arith.shrui %index, %c2 : index
      %i = arith.addi %first, %t : index
      %v = memref.load %flat[%i] : memref<?xf32, #gpu.address_space<global>>
      memref.store %v, %out[%t] : memref<?xf32, #gpu.address_space<global>>
      gpu.return
    }
  }
}

// -----

// A permlane swap's struct of results is read as one exchange per result,
// each taking both operands.
// CHECK-LABEL: func.func @halves_workgroup(
// CHECK: call @rocktile_emu_permlane_swap_result(%{{.*}}, %{{.*}}, %{{.*}}, %c64_i64{{.*}}, %c16_i64{{.*}}, %c0_i64{{.*}})
// CHECK: call @rocktile_emu_permlane_swap_result(%{{.*}}, %{{.*}}, %{{.*}}, %c64_i64{{.*}}, %c16_i64{{.*}}, %c1_i64{{.*}})
// CHECK-NOT: llvm.extractvalue
// CHECK: scf.for
// CHECK: arith.addi
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @halves(%out: memref<?xi32, #gpu.address_space<global>>)
        kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %t = gpu.thread_id x
      %v = arith.index_cast %t : index to i32
      %s = rocdl.permlane16.swap %v, %v, false, false : (i32, i32) -> <(i32, i32)>
      %lo = llvm.extractvalue %s[0] : !llvm.struct<(i32, i32)>
      %hi = llvm.extractvalue %s[1] : !llvm.struct<(i32, i32)>
      %sum = arith.addi %lo, %hi : i32
      memref.store %sum, %out[%t] : memref<?xi32, #gpu.address_space<global>>
      gpu.return
    }
  }
}

// -----

// A permlanex16 reads its constant selects at compile time.
// CHECK-LABEL: func.func @rows_exchanged_workgroup(
// CHECK: call @rocktile_emu_permlanex16(%{{.*}}, %{{.*}}, %c64_i64{{.*}}, %c4_i64{{.*}}, %c1985229328_i64{{.*}}, %c-19088744_i64{{.*}})
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @rows_exchanged(%out: memref<?xi32, #gpu.address_space<global>>)
        kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %t = gpu.thread_id x
      %v = arith.index_cast %t : index to i32
      %sel0 = arith.constant 1985229328 : i32
      %sel1 = arith.constant -19088744 : i32
      %x = rocdl.permlanex16 %v, %v, %sel0, %sel1, true, false : i32, i32
      memref.store %x, %out[%t] : memref<?xi32, #gpu.address_space<global>>
      gpu.return
    }
  }
}

// -----

// A scheduling fence for the backend has nothing to emulate: the lanes run
// the ops in order, in one loop.
// CHECK-LABEL: func.func @fenced_workgroup(
// CHECK-NOT: rocdl.sched.barrier
// CHECK: scf.for
// CHECK-NOT: scf.for
// CHECK: return
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @fenced(%out: memref<?xi32, #gpu.address_space<global>>)
        kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %t = gpu.thread_id x
      %v = arith.index_cast %t : index to i32
      rocdl.sched.barrier 0
      %w = arith.addi %v, %v : i32
      memref.store %w, %out[%t] : memref<?xi32, #gpu.address_space<global>>
      gpu.return
    }
  }
}

// -----

// A volatile load is where a workgroup may wait for another: after it, the
// runtime gets the value read (folded into an i64) and may run other
// workgroups; the module is marked so the launch keeps them all resident.
// CHECK: module attributes {rocktile.emulator_sites = {{.*}}, rocktile.emulator_spins}
// CHECK-LABEL: func.func @spin_workgroup(
// CHECK: scf.while
// CHECK: %[[V:.*]] = memref.load %{{.*}} {rocktile.volatile}
// CHECK: %[[BITS:.*]] = arith.extui %[[V]] : i32 to i64
// CHECK: func.call @rocktile_emu_spin(%{{.*}}, %{{.*}}, %[[BITS]])
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @spin(%flag: memref<?xi32, #gpu.address_space<global>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0 : i32
      scf.while : () -> () {
        %v = memref.load %flag[%c0] {rocktile.volatile} : memref<?xi32, #gpu.address_space<global>> loc("spin.py":4:11)
        %wait = arith.cmpi eq, %v, %zero : i32
        scf.condition(%wait)
      } do {
        scf.yield
      }
      gpu.return
    }
  }
}

// -----

// Racecheck and initcheck: each access to a buffer argument tells the
// runtime its site, first element, element count, thread and kind (0 load,
// 1 store, 2 atomic) before it runs; LDS accesses do not (they have their
// own check). Fences at device or system scope order workgroups: a release
// fence counts a release, an acquire fence records the count; a fence at
// workgroup scope does neither.
// CHECK-LABEL: func.func @hand_off_workgroup(
// CHECK: scf.for
// CHECK: func.call @rocktile_emu_global_access(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c1_i64{{[_0-9]*}}) :
// CHECK-NEXT: memref.store
// CHECK: func.call @rocktile_emu_release(
// CHECK-NEXT: llvm.fence syncscope("agent") release
// CHECK: func.call @rocktile_emu_global_access(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c2_i64{{[_0-9]*}}) :
// CHECK-NEXT: memref.atomic_rmw
// CHECK-NOT: rocktile_emu_release
// CHECK: llvm.fence syncscope("workgroup") acquire
// CHECK: func.call @rocktile_emu_acquire(
// CHECK-NEXT: llvm.fence acquire
// CHECK: func.call @rocktile_emu_global_access(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c0_i64{{[_0-9]*}}) :
// CHECK-NEXT: memref.load
// CHECK-NOT: rocktile_emu_global_access
// CHECK: return
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @hand_off(%data: memref<?xi32, #gpu.address_space<global>>, %flag: memref<?xi32, #gpu.address_space<global>>)
        workgroup(%lds : memref<256xi8, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1 : i32
      %t = gpu.thread_id x
      memref.store %one, %data[%t] : memref<?xi32, #gpu.address_space<global>>
      llvm.fence syncscope("agent") release
      %old = memref.atomic_rmw addi %one, %flag[%c0] : (i32, memref<?xi32, #gpu.address_space<global>>) -> i32
      llvm.fence syncscope("workgroup") acquire
      llvm.fence acquire
      %v = memref.load %data[%t] : memref<?xi32, #gpu.address_space<global>>
      %view = memref.view %lds[%c0][] : memref<256xi8, #gpu.address_space<workgroup>> to memref<64xi32, #gpu.address_space<workgroup>>
      memref.store %v, %view[%t] : memref<64xi32, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}

// -----

// An LDS read at an address every thread shares, by an op every thread
// runs, is recorded for the whole workgroup at thread 0's turn (one call,
// not one per thread); a read under a per-thread branch, or at a per-thread
// address, is recorded per thread.
// CHECK-LABEL: func.func @shared_lds_read_workgroup(
// CHECK: scf.for %[[T:.*]] =
// CHECK:   %[[FIRST:.*]] = arith.cmpi eq, %[[T]], %c0
// CHECK:   scf.if %[[FIRST]] {
// CHECK:     call @rocktile_emu_lds_access_all(%{{.*}}, %{{.*}}, %{{.*}}, %c4_i64, %c0_i64{{.*}})
// CHECK:   call @rocktile_emu_lds_access(%{{.*}}, %c{{[0-9]}}_i64, %{{.*}}, %c4_i64, %{{[0-9]+}}, %c0_i64)
// CHECK:   call @rocktile_emu_lds_access(%{{.*}}, %c{{[0-9]}}_i64, %{{.*}}, %c4_i64, %{{[0-9]+}}, %c0_i64)
// CHECK-NOT: call @rocktile_emu_lds_access_all
// CHECK: return
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @shared_lds_read(%x: memref<?xf32, #gpu.address_space<global>>)
        workgroup(%lds: memref<64xf32, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %t = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c3 = arith.constant 3 : index
      %a = memref.load %lds[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
      %low = arith.cmpi ult, %t, %c3 : index
      %b = scf.if %low -> (f32) {
        %v = memref.load %lds[%c3] : memref<64xf32, #gpu.address_space<workgroup>>
        scf.yield %v : f32
      } else {
        scf.yield %a : f32
      }
      %c = memref.load %lds[%t] : memref<64xf32, #gpu.address_space<workgroup>>
      %s = arith.addf %a, %b : f32
      %r = arith.addf %s, %c : f32
      memref.store %r, %x[%t] : memref<?xf32, #gpu.address_space<global>>
      gpu.return
    }
  }
}

// -----

// Per-thread arrays beyond 1 MiB in all (here 1024 threads' 512 floats
// across a barrier: 2 MiB) are allocated on the heap and freed, not on the
// stack.
// CHECK-LABEL: func.func @large_arrays_workgroup(
// CHECK: %[[A:.*]] = memref.alloc() : memref<1024xvector<512xf32>>
// CHECK: call @rocktile_emu_lds_barrier
// CHECK: memref.dealloc %[[A]]
// CHECK: return
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @large_arrays(%x: memref<?xvector<512xf32>, #gpu.address_space<global>>)
        kernel attributes {known_block_size = array<i32: 1024, 1, 1>} {
      %t = gpu.thread_id x
      %v = memref.load %x[%t] : memref<?xvector<512xf32>, #gpu.address_space<global>>
      gpu.barrier
      %w = arith.addf %v, %v : vector<512xf32>
      memref.store %w, %x[%t] : memref<?xvector<512xf32>, #gpu.address_space<global>>
      gpu.return
    }
  }
}

// -----

// A lane's private array (LowerToSimt's loop over a large tile's chunks)
// is each thread's part of one array for the workgroup, at thread x 16, and
// holds its values across segments (the barrier); its accesses are the
// compiler's own and are not checked.
// CHECK-LABEL: func.func @private_array_workgroup(
// CHECK: %[[ALL:.*]] = memref.alloca() : memref<2048xf32>
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step
// CHECK:   %[[FIRST:.*]] = arith.muli %[[T]], %[[C16:.*]] : index
// CHECK:   %[[AT:.*]] = arith.addi %{{.*}}, %[[FIRST]] : index
// CHECK-NEXT: vector.store %{{.*}}, %[[ALL]][%[[AT]]] : memref<2048xf32>, vector<16xf32>
// CHECK: call @rocktile_emu_lds_barrier
// CHECK: scf.for %[[U:.*]] = %{{.*}} to %{{.*}} step
// CHECK:   scf.for %[[G:.*]] =
// CHECK:     %[[FROM:.*]] = arith.muli %[[U]], %{{.*}} : index
// CHECK:     %[[AT2:.*]] = arith.addi %[[G]], %[[FROM]] : index
// CHECK-NOT:   rocktile_emu_global_access
// CHECK:     vector.load %[[ALL]][%[[AT2]]] : memref<2048xf32>, vector<4xf32>
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @private_array(%x: memref<?xf32, #gpu.address_space<global>>)
        kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %a = memref.alloca() : memref<16xf32, #gpu.address_space<private>>
      %c0 = arith.constant 0 : index
      %c4 = arith.constant 4 : index
      %c16 = arith.constant 16 : index
      %t = gpu.thread_id x
      %v = vector.broadcast %c0 : index to vector<16xindex>
      %f = arith.constant dense<1.0> : vector<16xf32>
      vector.store %f, %a[%c0] : memref<16xf32, #gpu.address_space<private>>, vector<16xf32>
      gpu.barrier
      scf.for %g = %c0 to %c16 step %c4 {
        %chunk = vector.load %a[%g] : memref<16xf32, #gpu.address_space<private>>, vector<4xf32>
        %i = arith.muli %t, %c16 : index
        %j = arith.addi %i, %g : index
        vector.store %chunk, %x[%j] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
      }
      gpu.return
    }
  }
}
