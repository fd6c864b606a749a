// RUN: pe-opt %s --split-input-file --pe-free-mpi-communicators --verify-diagnostics | FileCheck %s

// The communicator of a split (MPICH: an int) is freed after the last call
// that uses it, through its extensions and truncations.
// CHECK: llvm.func @MPI_Comm_free(!llvm.ptr) -> i32
// CHECK-LABEL: llvm.func @allreduce
// CHECK: llvm.call @MPI_Comm_split(%{{.*}}, %{{.*}}, %{{.*}}, %[[SLOT:.*]]) :
// CHECK: llvm.call @MPI_Allreduce
// CHECK-NEXT: llvm.call @MPI_Comm_free(%[[SLOT]]) : (!llvm.ptr) -> i32
// CHECK-NEXT: llvm.mlir.constant(1 : i32)
// CHECK: llvm.return
llvm.func @MPI_Comm_split(i32, i32, i32, !llvm.ptr) -> i32
llvm.func @MPI_Allreduce(!llvm.ptr, !llvm.ptr, i32, i32, i32, i32) -> i32
llvm.func @allreduce(%world: i32, %color: i32, %key: i32, %buf: !llvm.ptr, %n: i32) -> i32 {
  %one = llvm.mlir.constant(1 : i32) : i32
  %slot = llvm.alloca %one x i32 : (i32) -> !llvm.ptr
  %rc = llvm.call @MPI_Comm_split(%world, %color, %key, %slot) : (i32, i32, i32, !llvm.ptr) -> i32
  %comm = llvm.load %slot : !llvm.ptr -> i32
  %wide = llvm.sext %comm : i32 to i64
  %narrow = llvm.trunc %wide : i64 to i32
  %inplace = llvm.mlir.constant(-1 : i64) : i64
  %in = llvm.inttoptr %inplace : i64 to !llvm.ptr
  %r = llvm.call @MPI_Allreduce(%in, %buf, %n, %one, %one, %narrow) : (!llvm.ptr, !llvm.ptr, i32, i32, i32, i32) -> i32
  %after = llvm.mlir.constant(1 : i32) : i32
  llvm.return %after : i32
}

// -----

// A use inside a nested region keeps the communicator alive until after the
// op that holds the region. An existing declaration is reused.
// CHECK-LABEL: llvm.func @MPI_Comm_free
// CHECK-NOT: llvm.func @MPI_Comm_free
// CHECK-LABEL: func.func @nested
// CHECK: scf.for
// CHECK: llvm.call @MPI_Allreduce
// CHECK: }
// CHECK-NEXT: llvm.call @MPI_Comm_free
llvm.func @MPI_Comm_free(!llvm.ptr) -> i32
llvm.func @MPI_Comm_split(i32, i32, i32, !llvm.ptr) -> i32
llvm.func @MPI_Allreduce(!llvm.ptr, !llvm.ptr, i32, i32, i32, i32) -> i32
func.func @nested(%world: i32, %buf: !llvm.ptr, %lb: index, %ub: index, %step: index) {
  %one = llvm.mlir.constant(1 : i32) : i32
  %slot = llvm.alloca %one x i32 : (i32) -> !llvm.ptr
  %rc = llvm.call @MPI_Comm_split(%world, %one, %one, %slot) : (i32, i32, i32, !llvm.ptr) -> i32
  %comm = llvm.load %slot : !llvm.ptr -> i32
  scf.for %i = %lb to %ub step %step {
    %r = llvm.call @MPI_Allreduce(%buf, %buf, %one, %one, %one, %comm) : (!llvm.ptr, !llvm.ptr, i32, i32, i32, i32) -> i32
  }
  return
}

// -----

// Must not fire: a communicator that is returned outlives the function.
// CHECK-LABEL: llvm.func @escapes
// CHECK-NOT: MPI_Comm_free(
// CHECK: llvm.return
llvm.func @MPI_Comm_split(i32, i32, i32, !llvm.ptr) -> i32
llvm.func @escapes(%world: i32) -> i32 {
  %one = llvm.mlir.constant(1 : i32) : i32
  %slot = llvm.alloca %one x i32 : (i32) -> !llvm.ptr
  // expected-remark @below {{the communicator of this MPI_Comm_split is stored, returned or passed on; it is not freed here}}
  %rc = llvm.call @MPI_Comm_split(%world, %one, %one, %slot) : (i32, i32, i32, !llvm.ptr) -> i32
  %comm = llvm.load %slot : !llvm.ptr -> i32
  llvm.return %comm : i32
}

// -----

// Must not fire: the slot is handed to another function, which may keep
// the communicator.
// CHECK-LABEL: llvm.func @slot_escapes
// CHECK-NOT: MPI_Comm_free(
llvm.func @MPI_Comm_split(i32, i32, i32, !llvm.ptr) -> i32
llvm.func @keep(!llvm.ptr)
llvm.func @slot_escapes(%world: i32) {
  %one = llvm.mlir.constant(1 : i32) : i32
  %slot = llvm.alloca %one x i32 : (i32) -> !llvm.ptr
  // expected-remark @below {{it is not freed here}}
  %rc = llvm.call @MPI_Comm_split(%world, %one, %one, %slot) : (i32, i32, i32, !llvm.ptr) -> i32
  llvm.call @keep(%slot) : (!llvm.ptr) -> ()
  llvm.return
}

// -----

// Nothing to do without a split: no declaration is added.
// CHECK-LABEL: llvm.func @no_split
// CHECK-NOT: MPI_Comm_free
llvm.func @no_split() {
  llvm.return
}
