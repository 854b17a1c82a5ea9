;; A tenant program that accepts only end-to-end encrypted pastes: it reads
;; the meta's "encrypted" field and refuses every paste without it.
(module
  (memory (export "memory") 1)
  (data (i32.const 0) "\22encrypted\22:true")
  (data (i32.const 64) "refused: this tenant accepts only end-to-end encrypted pastes (snip put --encrypt, or the browser's Encrypt box)")

  (global $next (mut i32) (i32.const 1024))

  (func (export "alloc") (param $len i32) (result i32)
    (local $ptr i32)
    (local $end i32)
    (local.set $ptr (global.get $next))
    (local.set $end (i32.add (local.get $ptr) (local.get $len)))
    (if (i32.gt_u (local.get $end) (i32.shl (memory.size) (i32.const 16)))
      (then
        (if (i32.eq
              (memory.grow
                (i32.shr_u
                  (i32.add
                    (i32.sub (local.get $end) (i32.shl (memory.size) (i32.const 16)))
                    (i32.const 65535))
                  (i32.const 16)))
              (i32.const -1))
          (then unreachable))))
    (global.set $next (local.get $end))
    (local.get $ptr))

  (func (export "output_ptr") (result i32) (i32.const 64))
  (func (export "output_len") (result i32) (i32.const 112))

  ;; Whether the 16 bytes at 0 occur in the meta.
  (func (export "check") (param $body i32) (param $body_len i32)
                         (param $meta i32) (param $len i32) (result i32)
    (local $i i32)
    (local $j i32)
    (block $done
      (loop $next
        (br_if $done (i32.gt_u (i32.add (local.get $i) (i32.const 16)) (local.get $len)))
        (local.set $j (i32.const 0))
        (block $mismatch
          (loop $cmp
            (if (i32.eq (local.get $j) (i32.const 16)) (then (return (i32.const 0))))
            (br_if $mismatch
              (i32.ne
                (i32.load8_u (i32.add (local.get $meta) (i32.add (local.get $i) (local.get $j))))
                (i32.load8_u (local.get $j))))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $cmp)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (i32.const 1)))
