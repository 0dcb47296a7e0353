;; Squared Euclidean distances from one query to `n` vectors (l2Kernel.ts holds these instructions assembled).
;; l2(q, base, out, n, bytes): the query at `q`, the vectors one after another from `base`, each `bytes` long
;; (a multiple of 16: four float32 lanes); the n distances go to `out` as float32.
(module
 (memory (export "memory") 1)
 (func (export "l2") (param $q i32) (param $base i32) (param $out i32) (param $n i32) (param $bytes i32)
   (local $row i32) (local $i i32) (local $acc v128) (local $diff v128)
   (block $done
    (loop $rows
      (br_if $done (i32.ge_u (local.get $row) (local.get $n)))
      (local.set $acc (v128.const f32x4 0 0 0 0))
      (local.set $i (i32.const 0))
      (block $idone
       (loop $inner
         (br_if $idone (i32.ge_u (local.get $i) (local.get $bytes)))
         (local.set $diff (f32x4.sub (v128.load (i32.add (local.get $base) (local.get $i))) (v128.load (i32.add (local.get $q) (local.get $i)))))
         (local.set $acc (f32x4.add (local.get $acc) (f32x4.mul (local.get $diff) (local.get $diff))))
         (local.set $i (i32.add (local.get $i) (i32.const 16)))
         (br $inner)))
      (f32.store (local.get $out) (f32.add (f32.add (f32x4.extract_lane 0 (local.get $acc)) (f32x4.extract_lane 1 (local.get $acc))) (f32.add (f32x4.extract_lane 2 (local.get $acc)) (f32x4.extract_lane 3 (local.get $acc)))))
      (local.set $out (i32.add (local.get $out) (i32.const 4)))
      (local.set $base (i32.add (local.get $base) (local.get $bytes)))
      (local.set $row (i32.add (local.get $row) (i32.const 1)))
      (br $rows))))
)
