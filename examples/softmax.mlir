// Row softmax over a [N x 256] f32 matrix, 16 rows per tile:
//   y[i, :] = exp(x[i, :] - max_j x[i, j]) / sum_j exp(x[i, j] - max_j x[i, j])
// N need not be a multiple of 16: the last tile's valid region has the
// remaining rows, given to tile.load as a run-time size.
func.func @softmax(%x: memref<?x256xf32>, %y: memref<?x256xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %n = memref.dim %x, %c0 : memref<?x256xf32>
  scf.for %i = %c0 to %n step %c16 {
    %left = arith.subi %n, %i : index
    %rows = arith.minsi %left, %c16 : index
    %t = tile.load %x[%i, %c0] valid [%rows] : memref<?x256xf32> -> !tile.tile<16x256xf32, valid = ?x256>
    %max = tile.row_reduce max %t : !tile.tile<16x256xf32, valid = ?x256> -> !tile.tile<16x1xf32, valid = ?x1>
    %max_b = tile.broadcast %max : !tile.tile<16x1xf32, valid = ?x1> -> !tile.tile<16x256xf32, valid = ?x256>
    %shifted = tile.sub %t, %max_b : !tile.tile<16x256xf32, valid = ?x256>
    %e = tile.exp %shifted : !tile.tile<16x256xf32, valid = ?x256>
    %sum = tile.row_reduce sum %e : !tile.tile<16x256xf32, valid = ?x256> -> !tile.tile<16x1xf32, valid = ?x1>
    %sum_b = tile.broadcast %sum : !tile.tile<16x1xf32, valid = ?x1> -> !tile.tile<16x256xf32, valid = ?x256>
    %p = tile.div %e, %sum_b : !tile.tile<16x256xf32, valid = ?x256>
    tile.store %p, %y[%i, %c0] : !tile.tile<16x256xf32, valid = ?x256>, memref<?x256xf32>
  }
  return
}
