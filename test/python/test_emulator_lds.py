"""The emulator's LDS checks, at the SIMT level where the compiler's LDS
exchanges live (kernels in Triton's language have no LDS of their own;
test_dot.py and the reductions run the compiler's exchanges under the same
checks):
- races: an LDS access that conflicts with another wave's since the last
  barrier (write after write, read after write, write after read) is an
  error naming both source lines, whatever order the waves run in here;
- bank conflicts: counted per LDS instruction, from the target's banks."""
import numpy as np
import pytest

from rocktile.compiler import load_C

# Thread t writes t into LDS word t, then reads word (t + 64) % 128, which a
# thread of the other wave wrote, and stores it to out[t].
PROGRAM = """
module attributes {{gpu.container_module}} {{
  gpu.module @m {{
    gpu.func @exchange(%out: memref<?xi32, #gpu.address_space<global>>)
        workgroup(%lds: memref<512xi8, #gpu.address_space<workgroup>>)
        kernel attributes {{known_block_size = array<i32: 128, 1, 1>}} {{
      %c0 = arith.constant 0 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %t = gpu.thread_id x
      %words = memref.view %lds[%c0][] : memref<512xi8, #gpu.address_space<workgroup>> to memref<128xi32, #gpu.address_space<workgroup>>
      %v = arith.index_cast %t : index to i32
      memref.store %v, %words[%t] : memref<128xi32, #gpu.address_space<workgroup>> loc("exchange.py":{write}:5)
      {barrier}
      %s = arith.addi %t, %c64 : index
      %u = arith.remui %s, %c128 : index
      %w = memref.load %words[%u] : memref<128xi32, #gpu.address_space<workgroup>> loc("exchange.py":{read}:9)
      memref.store %w, %out[%t] : memref<?xi32, #gpu.address_space<global>>
      gpu.return
    }}
  }}
}}
"""


def launch(barrier):
    C = load_C()
    kernel = C.Emulator(PROGRAM.format(write=3, read=4, barrier="gpu.barrier" if barrier else ""), 64, 64)
    out = np.zeros(128, np.int32)
    kernel.launch((1, 1, 1), [("buffer", "out", out.ctypes.data, out.size)], 1)
    return out


def test_exchange_with_a_barrier_runs():
    np.testing.assert_array_equal(launch(barrier=True), (np.arange(128) + 64) % 128)


def test_missing_barrier_is_a_race_naming_both_lines():
    C = load_C()
    with pytest.raises(C.EmulatorFault) as info:
        launch(barrier=False)
    message = str(info.value)
    assert "LDS race on byte" in message
    assert "exchange.py:3:5" in message and "exchange.py:4:9" in message, message


# Thread 0 writes LDS word 0; then every thread reads it (an address they
# share, which the emulator records for the whole workgroup at once).
SHARED = """
module attributes {{gpu.container_module}} {{
  gpu.module @m {{
    gpu.func @shared(%out: memref<?xi32, #gpu.address_space<global>>)
        workgroup(%lds: memref<512xi8, #gpu.address_space<workgroup>>)
        kernel attributes {{known_block_size = array<i32: 128, 1, 1>}} {{
      %c0 = arith.constant 0 : index
      %c7 = arith.constant 7 : i32
      %t = gpu.thread_id x
      %words = memref.view %lds[%c0][] : memref<512xi8, #gpu.address_space<workgroup>> to memref<128xi32, #gpu.address_space<workgroup>>
      %first = arith.cmpi eq, %t, %c0 : index
      scf.if %first {{
        memref.store %c7, %words[%c0] : memref<128xi32, #gpu.address_space<workgroup>> loc("shared.py":3:5)
      }}
      {barrier}
      %w = memref.load %words[%c0] : memref<128xi32, #gpu.address_space<workgroup>> loc("shared.py":4:9)
      memref.store %w, %out[%t] : memref<?xi32, #gpu.address_space<global>>
      gpu.return
    }}
  }}
}}
"""


def test_a_read_every_thread_shares_is_checked_for_every_wave():
    C = load_C()
    out = np.zeros(128, np.int32)
    args = [("buffer", "out", out.ctypes.data, out.size)]
    kernel = C.Emulator(SHARED.format(barrier="gpu.barrier"), 64, 64)
    kernel.launch((1, 1, 1), args, 1)
    np.testing.assert_array_equal(out, np.full(128, 7))
    (read,) = [s for s in kernel.bank_conflicts() if s["kind"] == "load"]
    assert read == {"location": "shared.py:4:9", "kind": "load", "executions": 2, "extra_cycles": 0}
    # Without the barrier, wave 1 reads what wave 0 wrote: a race.
    kernel = C.Emulator(SHARED.format(barrier=""), 64, 64)
    with pytest.raises(C.EmulatorFault) as info:
        kernel.launch((1, 1, 1), args, 1)
    assert "LDS race on byte 0" in str(info.value) and "shared.py:3:5" in str(info.value), str(info.value)


# Thread t stores to LDS word (t / RUN) * STRIDE, once: runs of RUN lanes
# store to one word (the emulator keeps each run as one record).
STRIDED = """
module attributes {{gpu.container_module}} {{
  gpu.module @m {{
    gpu.func @strided() workgroup(%lds: memref<8192xi8, #gpu.address_space<workgroup>>)
        kernel attributes {{known_block_size = array<i32: 64, 1, 1>}} {{
      %c0 = arith.constant 0 : index
      %stride = arith.constant {stride} : index
      %t = gpu.thread_id x
      %words = memref.view %lds[%c0][] : memref<8192xi8, #gpu.address_space<workgroup>> to memref<2048xi32, #gpu.address_space<workgroup>>
      %run = arith.constant {run} : index
      %r = arith.divui %t, %run : index
      %i = arith.muli %r, %stride : index
      %v = arith.index_cast %t : index to i32
      memref.store %v, %words[%i] : memref<2048xi32, #gpu.address_space<workgroup>> loc("strided.py":7:5)
      gpu.return
    }}
  }}
}}
"""


@pytest.mark.parametrize("stride,run,banks,extra", [
    (1, 1, 64, 0),    # 64 lanes, 64 banks: one cycle
    (2, 1, 64, 1),    # lanes t and t + 32 share a bank: two cycles
    (32, 1, 64, 31),  # 32 distinct dwords in each of two banks
    (0, 1, 64, 0),    # one dword for everyone: no conflict
    (1, 1, 32, 0),    # 32 banks: two phases of 32 lanes, each conflict-free
    (2, 1, 32, 2),    # 32 banks: two dwords per used bank, in each phase
    (64, 32, 64, 1),  # words 0 and 64 (one bank) from two runs of 32 lanes
    (64, 32, 32, 0),  # 32 banks: each run is a phase of its own
    (64, 16, 32, 2),  # 32 banks: two runs, two dwords of one bank, per phase
    (64, 48, 32, 1),  # a run across phases: words 0 and 64 in the second
])
def test_bank_conflicts_per_instruction(stride, run, banks, extra):
    C = load_C()
    kernel = C.Emulator(STRIDED.format(stride=stride, run=run), 64, banks)
    kernel.launch((2, 1, 1), [], 1)
    (site,) = kernel.bank_conflicts()
    assert site == {"location": "strided.py:7:5", "kind": "store", "executions": 2, "extra_cycles": 2 * extra}
