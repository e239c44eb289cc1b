// C[M x N] (f32) = A[M x K] (f16) x B[K x N] (f16), in 64x64 output tiles
// with a K loop of depth 32 accumulating in f32 (mixed precision).
func.func @gemm(%a: memref<256x512xf16>, %b: memref<512x128xf16>, %c: memref<256x128xf32>) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %m = arith.constant 256 : index
  %n = arith.constant 128 : index
  %k = arith.constant 512 : index
  scf.for %i = %c0 to %m step %c64 {
    scf.for %j = %c0 to %n step %c64 {
      %zero = tile.constant 0.0 : !tile.tile<64x64xf32>
      %acc = scf.for %kk = %c0 to %k step %c32 iter_args(%sum = %zero) -> (!tile.tile<64x64xf32>) {
        %ta = tile.load %a[%i, %kk] : memref<256x512xf16> -> !tile.tile<64x32xf16>
        %tb = tile.load %b[%kk, %j] : memref<512x128xf16> -> !tile.tile<32x64xf16>
        %next = tile.matmul %ta, %tb, %sum : !tile.tile<64x32xf16>, !tile.tile<32x64xf16> -> !tile.tile<64x64xf32>
        scf.yield %next : !tile.tile<64x64xf32>
      }
      tile.store %acc, %c[%i, %j] : !tile.tile<64x64xf32>, memref<256x128xf32>
    }
  }
  return
}
