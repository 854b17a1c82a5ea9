;; A tenant program that redacts e-mail addresses: each one becomes
;; "[email]", and the paste is stored with them replaced (answer 2). A paste
;; without any is accepted as it is (answer 0); an encrypted paste is
;; ciphertext, and is accepted as it is.
;;
;; An address here is one or more of [A-Za-z0-9._%+-], "@", then a domain of
;; [A-Za-z0-9.-] with a dot inside it.
(module
  (memory (export "memory") 1)
  (data (i32.const 0) "\22encrypted\22:true")
  (data (i32.const 32) "[email]")

  (global $next (mut i32) (i32.const 1024))
  (global $out_ptr (mut i32) (i32.const 0))
  (global $out_len (mut i32) (i32.const 0))

  (func $alloc (export "alloc") (param $len i32) (result i32)
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

  (func (export "output_ptr") (result i32) (global.get $out_ptr))
  (func (export "output_len") (result i32) (global.get $out_len))

  (func $alnum (param $c i32) (result i32)
    (i32.or
      (i32.or
        (i32.lt_u (i32.sub (local.get $c) (i32.const 65)) (i32.const 26))
        (i32.lt_u (i32.sub (local.get $c) (i32.const 97)) (i32.const 26)))
      (i32.lt_u (i32.sub (local.get $c) (i32.const 48)) (i32.const 10))))

  ;; [A-Za-z0-9._%+-]
  (func $local_char (param $c i32) (result i32)
    (i32.or
      (call $alnum (local.get $c))
      (i32.or
        (i32.or (i32.eq (local.get $c) (i32.const 46)) (i32.eq (local.get $c) (i32.const 95)))
        (i32.or
          (i32.eq (local.get $c) (i32.const 37))
          (i32.or (i32.eq (local.get $c) (i32.const 43)) (i32.eq (local.get $c) (i32.const 45)))))))

  ;; [A-Za-z0-9.-]
  (func $domain_char (param $c i32) (result i32)
    (i32.or
      (call $alnum (local.get $c))
      (i32.or (i32.eq (local.get $c) (i32.const 46)) (i32.eq (local.get $c) (i32.const 45)))))

  ;; Whether the meta says the paste is encrypted.
  (func $encrypted (param $meta i32) (param $len i32) (result i32)
    (local $i i32)
    (local $j i32)
    (block $done
      (loop $next
        (br_if $done (i32.gt_u (i32.add (local.get $i) (i32.const 16)) (local.get $len)))
        (local.set $j (i32.const 0))
        (block $mismatch
          (loop $cmp
            (if (i32.eq (local.get $j) (i32.const 16)) (then (return (i32.const 1))))
            (br_if $mismatch
              (i32.ne
                (i32.load8_u (i32.add (local.get $meta) (i32.add (local.get $i) (local.get $j))))
                (i32.load8_u (local.get $j))))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $cmp)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (i32.const 0))

  (func (export "check") (param $body i32) (param $len i32)
                         (param $meta i32) (param $meta_len i32) (result i32)
    (local $out i32)      ;; the output buffer
    (local $o i32)        ;; bytes written to it
    (local $i i32)        ;; position in the body
    (local $copied i32)   ;; body bytes before this are in the output (or redacted)
    (local $start i32)    ;; start of the local part
    (local $end i32)      ;; end of the domain
    (local $dot i32)      ;; whether the domain has an inner dot
    (local $found i32)
    (if (call $encrypted (local.get $meta) (local.get $meta_len))
      (then (return (i32.const 0))))
    ;; "[email]" (7 bytes) replaces at least "a@b.c" (5): room for 2x.
    (local.set $out (call $alloc (i32.add (i32.shl (local.get $len) (i32.const 1)) (i32.const 8))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $len)))
        (if (i32.eq (i32.load8_u (i32.add (local.get $body) (local.get $i))) (i32.const 64))
          (then
            ;; the local part: back from the "@", not into what was redacted
            (local.set $start (local.get $i))
            (block $l_done
              (loop $l_next
                (br_if $l_done (i32.le_u (local.get $start) (local.get $copied)))
                (br_if $l_done
                  (i32.eqz (call $local_char
                    (i32.load8_u (i32.add (local.get $body) (i32.sub (local.get $start) (i32.const 1)))))))
                (local.set $start (i32.sub (local.get $start) (i32.const 1)))
                (br $l_next)))
            ;; the domain: forward from the "@"
            (local.set $end (i32.add (local.get $i) (i32.const 1)))
            (block $d_done
              (loop $d_next
                (br_if $d_done (i32.ge_u (local.get $end) (local.get $len)))
                (br_if $d_done
                  (i32.eqz (call $domain_char
                    (i32.load8_u (i32.add (local.get $body) (local.get $end))))))
                (local.set $end (i32.add (local.get $end) (i32.const 1)))
                (br $d_next)))
            ;; a sentence's full stop is not part of the domain
            (block $t_done
              (loop $t_next
                (br_if $t_done (i32.le_u (local.get $end) (i32.add (local.get $i) (i32.const 1))))
                (br_if $t_done
                  (i32.ne (i32.load8_u (i32.add (local.get $body) (i32.sub (local.get $end) (i32.const 1))))
                          (i32.const 46)))
                (local.set $end (i32.sub (local.get $end) (i32.const 1)))
                (br $t_next)))
            ;; a dot inside the domain, neither first nor last
            (local.set $dot (i32.const 0))
            (local.set $found (i32.add (local.get $i) (i32.const 2)))
            (block $s_done
              (loop $s_next
                (br_if $s_done (i32.ge_u (i32.add (local.get $found) (i32.const 1)) (local.get $end)))
                (if (i32.eq (i32.load8_u (i32.add (local.get $body) (local.get $found))) (i32.const 46))
                  (then (local.set $dot (i32.const 1))))
                (local.set $found (i32.add (local.get $found) (i32.const 1)))
                (br $s_next)))
            (if (i32.and (i32.lt_u (local.get $start) (local.get $i)) (local.get $dot))
              (then
                ;; copy what comes before the address, then the mark
                (memory.copy
                  (i32.add (local.get $out) (local.get $o))
                  (i32.add (local.get $body) (local.get $copied))
                  (i32.sub (local.get $start) (local.get $copied)))
                (local.set $o (i32.add (local.get $o) (i32.sub (local.get $start) (local.get $copied))))
                (memory.copy (i32.add (local.get $out) (local.get $o)) (i32.const 32) (i32.const 7))
                (local.set $o (i32.add (local.get $o) (i32.const 7)))
                (local.set $copied (local.get $end))
                (local.set $i (local.get $end))
                (br $next)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (if (i32.eqz (local.get $copied)) (then (return (i32.const 0))))
    (memory.copy
      (i32.add (local.get $out) (local.get $o))
      (i32.add (local.get $body) (local.get $copied))
      (i32.sub (local.get $len) (local.get $copied)))
    (global.set $out_ptr (local.get $out))
    (global.set $out_len (i32.add (local.get $o) (i32.sub (local.get $len) (local.get $copied))))
    (i32.const 2)))
