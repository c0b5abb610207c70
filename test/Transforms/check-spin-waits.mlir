// RUN: rocktile-opt %s -split-input-file --tile-check-spin-waits | FileCheck %s

// Loops that may wait: a volatile load, a plain load whose pointer moves
// each iteration, a plain load in a loop that writes memory. Unchanged.
// CHECK-LABEL: func.func @waits
// CHECK-COUNT-3: scf.while
func.func @waits(%flag: !tile.ptr<i32>, %c0: i32, %c1: i32) {
  scf.while : () -> () {
    %v = tile.load %flag {isVolatile} : !tile.ptr<i32> -> i32
    %wait = arith.cmpi eq, %v, %c0 : i32
    scf.condition(%wait)
  } do {
    scf.yield
  }
  %n = scf.while (%i = %c0) : (i32) -> i32 {
    %p = tile.addptr %flag, %i : !tile.ptr<i32>, i32
    %v = tile.load %p : !tile.ptr<i32> -> i32
    %more = arith.cmpi ne, %v, %c0 : i32
    scf.condition(%more) %i : i32
  } do {
  ^bb0(%j: i32):
    %next = arith.addi %j, %c1 : i32
    scf.yield %next : i32
  }
  scf.while : () -> () {
    %v = tile.load %flag : !tile.ptr<i32> -> i32
    %wait = arith.cmpi eq, %v, %c0 : i32
    scf.condition(%wait)
  } do {
    %old = tile.atomic_rmw <add> %flag, %c1 : !tile.ptr<i32>, i32
    scf.yield
  }
  return
}
