;; A tenant program that accepts every paste: the smallest module of the
;; ABI (docs/programs.md), and the one bench/run measures.
(module
  (memory (export "memory") 1)
  ;; Inputs are placed from 1024 on; `alloc` grows the memory as needed.
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
  (func (export "check") (param $body i32) (param $body_len i32)
                         (param $meta i32) (param $meta_len i32) (result i32)
    (i32.const 0))
  (func (export "output_ptr") (result i32) (i32.const 0))
  (func (export "output_len") (result i32) (i32.const 0)))
