// RUN: rocktile-opt %s -split-input-file --tile-check-spin-waits -verify-diagnostics

func.func @plain_spin(%flag: !tile.ptr<i32>, %c0: i32) {
  scf.while : () -> () {
    // expected-error @+1 {{this loop waits on a plain load that nothing in the loop changes: the compiler may read it once, so another program's write is never seen (on the GPU too); load it with volatile=True, or poll with an atomic}}
    %v = tile.load %flag : !tile.ptr<i32> -> i32
    %wait = arith.cmpi eq, %v, %c0 : i32
    scf.condition(%wait)
  } do {
    scf.yield
  }
  return
}

// -----

// The value reloaded in the body and carried round to the condition.
func.func @plain_spin_carried(%flag: !tile.ptr<i32>, %c0: i32) {
  %first = tile.load %flag {isVolatile} : !tile.ptr<i32> -> i32
  %r = scf.while (%seen = %first) : (i32) -> i32 {
    %wait = arith.cmpi eq, %seen, %c0 : i32
    scf.condition(%wait) %seen : i32
  } do {
  ^bb0(%s: i32):
    // expected-error @+1 {{this loop waits on a plain load}}
    %again = tile.load %flag : !tile.ptr<i32> -> i32
    scf.yield %again : i32
  }
  return
}
