// RUN: rocktile-opt %s -split-input-file --tile-lower-simt-to-host -verify-diagnostics

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @in_region(%v: f32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      // expected-error @+1 {{the emulator runs barriers and cross-lane ops inside scf.for, scf.if and scf.while only, not inside scf.execute_region}}
      scf.execute_region {
        %w = amdgpu.swizzle_bitmode %v 31 0 4 : f32
        scf.yield
      }
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    // expected-error @+1 {{the emulator needs a 1-D known_block_size}}
    gpu.func @no_size(%v: f32) kernel {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @narrow(%v: f16) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      // expected-error @+1 {{the emulator exchanges only 32- and 64-bit values between lanes}}
      %w = amdgpu.swizzle_bitmode %v 31 0 4 : f16
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @row_bcast15(%v: f32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      // expected-error @+1 {{the emulator implements DPP quad_perm, row_shl, row_shr, row_ror, row_mirror, row_half_mirror, row_share and row_xmask, not DPP control 0x142}}
      %w = rocdl.update.dpp %v, %v with 322, 15, 15, true : f32
      gpu.return
    }
  }
}

// -----

// A transpose read at a pointer not formed from an LDS view (as the compiler
// forms it) has no view to check the read against.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @foreign_pointer(%a: i64) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %p = llvm.inttoptr %a : i64 to !llvm.ptr<3>
      // expected-error @+1 {{the emulator reads rocdl transpose loads only at pointers into an LDS view}}
      %v = rocdl.ds.load.tr16.b128 %p : !llvm.ptr<3> -> vector<8xbf16>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @permlanex16_selects_unknown(%v: i32, %sel: i32, %p: memref<?xi32, #gpu.address_space<global>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      // expected-error @+1 {{the emulator implements permlanex16 of 32-bit values with constant selects, fetching all lanes, with old the source}}
      %x = rocdl.permlanex16 %v, %v, %sel, %sel, true, false : i32, i32
      %c0 = arith.constant 0 : index
      memref.store %x, %p[%c0] : memref<?xi32, #gpu.address_space<global>>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @swap_struct_used_whole(%v: i32, %p: !llvm.ptr) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      // expected-error @+1 {{the emulator reads permlane swaps' results only through llvm.extractvalue}}
      %s = rocdl.permlane32.swap %v, %v, false, false : (i32, i32) -> <(i32, i32)>
      llvm.store %s, %p : !llvm.struct<(i32, i32)>, !llvm.ptr
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @scaled_ext_matrix_fp8(%v: vector<8xf8E4M3FN>, %s: vector<4xf8E8M0FNU>, %p: memref<?xvector<8xf32>, #gpu.address_space<global>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      // expected-error @+1 {{the emulator runs scaled_ext_packed_matrix on E2M1 codes only}}
      %x = amdgpu.scaled_ext_packed_matrix %v scale(%s) blockSize(32) firstScaleLane(0) firstScaleByte(0) : vector<8xf8E4M3FN>, vector<4xf8E8M0FNU> -> vector<8xf32>
      %c0 = arith.constant 0 : index
      memref.store %x, %p[%c0] : memref<?xvector<8xf32>, #gpu.address_space<global>>
      gpu.return
    }
  }
}
