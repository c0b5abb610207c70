// The emulation runtime's wave-wide instructions, called from emulated
// kernels. Each takes the values of all `n` threads of a workgroup (waves of
// `waveSize` consecutive threads; `bytes` per value: 4, or 8 for values the
// hardware moves as two dwords) and applies the instruction to every wave
// at once, as the hardware does in lockstep. Semantics follow the ISA, not
// rocktile's lowering; the names are shared with the host lowering pass.
#ifndef ROCKTILE_EMULATOR_WAVEOPS_H
#define ROCKTILE_EMULATOR_WAVEOPS_H

#include <cstdint>

extern "C" {
/// DPP (v_mov_b32_dpp, llvm.amdgcn.update.dpp) with control `ctrl`: each
/// lane reads a lane of its row of 16: quad_perm (0x00-0xff: lane i reads
/// lane 4*(i/4) + bits 2(i%4).. of ctrl), row_shl:k (0x100+k: i + k),
/// row_shr:k (0x110+k: i - k), row_ror:k (0x120+k), row_mirror (0x140: 15 - i
/// in the row), row_half_mirror (0x141: 7 - i in each 8), row_share:k
/// (0x150+k: lane k of the row), row_xmask:k (0x160+k: i ^ k). Lanes whose
/// row (bit (lane % waveSize)/16 of `rowMask`) or bank (bit (lane%16)/4 of `bankMask`) is
/// masked keep `old`; a lane reading outside its row gets 0 with
/// `boundCtrl`, else keeps `old`.
void rocktile_emu_dpp(int64_t old, int64_t src, int64_t dst, int64_t n, int64_t bytes, int64_t waveSize,
                      int64_t ctrl, int64_t rowMask, int64_t bankMask, int64_t boundCtrl);
/// ds_swizzle in bit mode: within each 32 lanes, lane i reads lane
/// ((i & andMask) | orMask) ^ xorMask.
void rocktile_emu_ds_swizzle(int64_t src, int64_t dst, int64_t n, int64_t bytes, int64_t andMask,
                             int64_t orMask, int64_t xorMask);
/// v_permlane16_swap / v_permlane32_swap: lane i reads lane i ^ rowLength.
void rocktile_emu_permlane_swap(int64_t src, int64_t dst, int64_t n, int64_t bytes, int64_t waveSize,
                                int64_t rowLength);
/// v_permlanex16 (all lanes fetched): lane i reads, in the other row of 16
/// lanes of its 32, the lane that nibble i%16 of the 64-bit select
/// (`sel0` the low 8 nibbles, `sel1` the high) names.
void rocktile_emu_permlanex16(int64_t src, int64_t dst, int64_t n, int64_t bytes, int64_t sel0, int64_t sel1);
/// Result `which` (0: the first operand's register, 1: the second's) of
/// v_permlane16_swap / v_permlane32_swap on 32-bit values: the rows of 16
/// lanes with bit `rowLength` set in the first operand trade places with
/// those with it clear in the second.
void rocktile_emu_permlane_swap_result(int64_t first, int64_t second, int64_t dst, int64_t n,
                                       int64_t rowLength, int64_t which);
/// v_readfirstlane: every lane reads its wave's first lane (all lanes run).
void rocktile_emu_readfirstlane(int64_t src, int64_t dst, int64_t n, int64_t bytes, int64_t waveSize);
/// gpu.shuffle (ds_bpermute): within segments of `width` lanes, lane i reads
/// lane i ^ offset (mode 0), offset (mode 1, idx), i + offset (mode 2, down)
/// or i - offset (mode 3, up); `valid` is 0 where that lane is outside.
void rocktile_emu_shuffle(int64_t src, int64_t dst, int64_t valid, int64_t n, int64_t bytes,
                          int64_t waveSize, int64_t offset, int64_t width, int64_t mode);
/// The lane exchange of an LDS transpose read (ds_read_b64_tr_b16,
/// ds_load_tr16_b128), after each lane read `elements` consecutive values of
/// `bytes` bytes at its own address into `src`: within groups of `groupLanes`
/// lanes, which read an elements x groupLanes tile row by row (lanes
/// r*(groupLanes/elements) and up read row r), lane i receives column i.
void rocktile_emu_lds_transpose(int64_t src, int64_t dst, int64_t n, int64_t bytes, int64_t elements,
                                int64_t groupLanes);
/// Thread 0's value (of `bytes` bytes, zero-extended) of a condition or loop
/// bound all `n` threads must share; reports a fault at `site` when they
/// disagree.
int64_t rocktile_emu_shared_value(int64_t ctx, int64_t site, int64_t values, int64_t n, int64_t bytes);
/// A barrier: LDS accesses before it and after it no longer conflict.
void rocktile_emu_lds_barrier(int64_t ctx);
/// The host's steady clock in the GPU's real-time ticks (100 MHz).
int64_t rocktile_emu_realtime();
/// An LDS access of `bytes` bytes at element `index` of site `site`'s view by
/// `thread`: reports a race when another wave wrote these bytes (or, for a
/// write, read them) since the last barrier.
void rocktile_emu_lds_access(int64_t ctx, int64_t site, int64_t index, int64_t bytes, int64_t thread,
                             int64_t write);
/// rocktile_emu_lds_access by every thread of the workgroup at once (an
/// access at an address they share, which they all make).
void rocktile_emu_lds_access_all(int64_t ctx, int64_t site, int64_t index, int64_t bytes, int64_t write);
/// Each wave's tensor_load_to_lds (`.d2`: groups 0 and 1, per thread in
/// `g0` and `g1`, the wave's lanes agreeing): queued, its LDS destination
/// unreadable until a wait covers it.
void rocktile_emu_tensor_load(int64_t ctx, int64_t site, int64_t g0, int64_t g1, int64_t n);
/// Each wave's tensor_store_from_lds, as rocktile_emu_tensor_load: queued,
/// its LDS source unwritable until a wait covers it, when it writes the
/// tensor's elements inside its bounds.
void rocktile_emu_tensor_store(int64_t ctx, int64_t site, int64_t g0, int64_t g1, int64_t n);
/// s_wait_tensorcnt `count` in every wave: each wave's copies but its
/// `count` newest complete, in issue order.
void rocktile_emu_wait_tensorcnt(int64_t ctx, int64_t count);
/// A direct-to-LDS (gfx950) or async (gfx1250) load in every wave: each
/// lane's `bytes` bytes (`data`, per thread, read when issued) are queued
/// for LDS element `index` of the view at byte `ldsOffset` (`waveShared`:
/// the wave's first lane's element plus the lane's runs), unreadable and
/// unwritable until a wait covers them.
void rocktile_emu_async_load(int64_t ctx, int64_t site, int64_t data, int64_t index, int64_t n, int64_t eltBytes,
                             int64_t bytes, int64_t ldsOffset, int64_t waveShared);
/// s_waitcnt vmcnt / s_wait_asynccnt `count` in every wave: each wave's
/// async loads but its `count` newest land in LDS, in issue order.
void rocktile_emu_wait_async_loads(int64_t ctx, int64_t count);
/// Whether `bytes` bytes at host address `address`, reached through a
/// pointer made from an integer, may be read (or written, `store`): inside
/// one buffer argument, or in mapped host memory that overlaps none.
int64_t rocktile_emu_addressed_access(int64_t ctx, int64_t site, int64_t address, int64_t bytes, int64_t thread,
                                      int64_t kind);
/// Where a workgroup may wait for another (a volatile load, an atomic in a
/// while loop) and read `bits` (its value, folded) at `site`: in a launch on
/// fibers, the other workgroups run; a deadlock is a fault.
void rocktile_emu_spin(int64_t ctx, int64_t site, int64_t bits);
/// An access to buffer argument memory at `site`, `count` elements from
/// `index`, by `thread`; `kind` 0 reads, 1 writes, 2 is an atomic: racecheck
/// and initcheck (GlobalChecks.h).
void rocktile_emu_global_access(int64_t ctx, int64_t site, int64_t index, int64_t count, int64_t thread,
                                int64_t kind);
/// A release (acquire) fence at device or system scope, for racecheck's
/// ordering of workgroups' writes.
void rocktile_emu_release(int64_t ctx);
void rocktile_emu_acquire(int64_t ctx);
/// A memory access outside its buffer: records the first one of a launch.
void rocktile_emu_fault(int64_t ctx, int64_t site, int64_t index, int64_t count,
                        int64_t size, int64_t thread);
}

#endif
