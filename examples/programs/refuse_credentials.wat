;; A tenant program that refuses pastes holding credentials: AWS access key
;; IDs, PEM private keys, GitHub tokens and Slack tokens. One pass over the
;; body, dispatching on each byte, so its fuel grows with the paste's size.
;; An encrypted paste is ciphertext, and is accepted as it is.
(module
  (memory (export "memory") 1)
  (data (i32.const 0) "AKIA")
  (data (i32.const 4) "ASIA")
  (data (i32.const 8) "-----BEGIN ")
  (data (i32.const 24) "PRIVATE KEY-----")
  (data (i32.const 40) "github_pat_")
  (data (i32.const 56) "pousr")
  (data (i32.const 64) "baprs")
  (data (i32.const 72) "\22encrypted\22:true")
  (data (i32.const 128) "refused: the paste contains an AWS access key ID")
  (data (i32.const 192) "refused: the paste contains a PEM private key")
  (data (i32.const 256) "refused: the paste contains a GitHub token")
  (data (i32.const 320) "refused: the paste contains a Slack token")

  (global $next (mut i32) (i32.const 1024))
  (global $out_ptr (mut i32) (i32.const 0))
  (global $out_len (mut i32) (i32.const 0))

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

  (func (export "output_ptr") (result i32) (global.get $out_ptr))
  (func (export "output_len") (result i32) (global.get $out_len))

  ;; Answers 1 (refuse) with the reason at $ptr.
  (func $refuse (param $ptr i32) (param $len i32) (result i32)
    (global.set $out_ptr (local.get $ptr))
    (global.set $out_len (local.get $len))
    (i32.const 1))

  ;; Whether the $nlen bytes at $needle occur in [$hay, $hay + $len) at $i.
  (func $at (param $hay i32) (param $len i32) (param $i i32)
            (param $needle i32) (param $nlen i32) (result i32)
    (local $j i32)
    (if (i32.gt_u (i32.add (local.get $i) (local.get $nlen)) (local.get $len))
      (then (return (i32.const 0))))
    (block $done
      (loop $cmp
        (br_if $done (i32.ge_u (local.get $j) (local.get $nlen)))
        (if (i32.ne
              (i32.load8_u (i32.add (local.get $hay) (i32.add (local.get $i) (local.get $j))))
              (i32.load8_u (i32.add (local.get $needle) (local.get $j))))
          (then (return (i32.const 0))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $cmp)))
    (i32.const 1))

  ;; Whether the bytes occur anywhere in [$hay, $hay + $len).
  (func $contains (param $hay i32) (param $len i32)
                  (param $needle i32) (param $nlen i32) (result i32)
    (local $i i32)
    (block $done
      (loop $next
        (br_if $done (i32.gt_u (i32.add (local.get $i) (local.get $nlen)) (local.get $len)))
        (if (call $at (local.get $hay) (local.get $len) (local.get $i)
                      (local.get $needle) (local.get $nlen))
          (then (return (i32.const 1))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (i32.const 0))

  ;; Whether $c is one of the $n bytes at $set.
  (func $one_of (param $c i32) (param $set i32) (param $n i32) (result i32)
    (local $j i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $j) (local.get $n)))
        (if (i32.eq (local.get $c) (i32.load8_u (i32.add (local.get $set) (local.get $j))))
          (then (return (i32.const 1))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $next)))
    (i32.const 0))

  ;; Whether $c is in class 0 ([A-Z0-9]), 1 ([A-Za-z0-9_]) or 2 ([A-Za-z0-9-]).
  (func $in_class (param $c i32) (param $class i32) (result i32)
    (local $upper i32)
    (local $digit i32)
    (local $lower i32)
    (local.set $upper (i32.lt_u (i32.sub (local.get $c) (i32.const 65)) (i32.const 26)))
    (local.set $lower (i32.lt_u (i32.sub (local.get $c) (i32.const 97)) (i32.const 26)))
    (local.set $digit (i32.lt_u (i32.sub (local.get $c) (i32.const 48)) (i32.const 10)))
    (if (i32.eqz (local.get $class))
      (then (return (i32.or (local.get $upper) (local.get $digit)))))
    (if (i32.or (i32.or (local.get $upper) (local.get $lower)) (local.get $digit))
      (then (return (i32.const 1))))
    (if (i32.eq (local.get $class) (i32.const 1))
      (then (return (i32.eq (local.get $c) (i32.const 95)))))
    (i32.eq (local.get $c) (i32.const 45)))

  ;; Whether at least $min bytes of $class follow from $i.
  (func $run (param $hay i32) (param $len i32) (param $i i32)
             (param $class i32) (param $min i32) (result i32)
    (local $n i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $n) (local.get $min)))
        (br_if $done (i32.ge_u (i32.add (local.get $i) (local.get $n)) (local.get $len)))
        (br_if $done
          (i32.eqz
            (call $in_class
              (i32.load8_u (i32.add (local.get $hay) (i32.add (local.get $i) (local.get $n))))
              (local.get $class))))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (br $next)))
    (i32.ge_u (local.get $n) (local.get $min)))

  ;; The byte at $i, or 0 past the end.
  (func $byte (param $hay i32) (param $len i32) (param $i i32) (result i32)
    (if (result i32) (i32.lt_u (local.get $i) (local.get $len))
      (then (i32.load8_u (i32.add (local.get $hay) (local.get $i))))
      (else (i32.const 0))))

  (func (export "check") (param $body i32) (param $len i32)
                         (param $meta i32) (param $meta_len i32) (result i32)
    (local $i i32)
    (local $c i32)
    (local $j i32)
    (if (call $contains (local.get $meta) (local.get $meta_len) (i32.const 72) (i32.const 16))
      (then (return (i32.const 0))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $len)))
        (local.set $c (i32.load8_u (i32.add (local.get $body) (local.get $i))))
        ;; AKIA or ASIA and 16 of [A-Z0-9]
        (if (i32.eq (local.get $c) (i32.const 65))
          (then
            (if (i32.and
                  (i32.or
                    (call $at (local.get $body) (local.get $len) (local.get $i) (i32.const 0) (i32.const 4))
                    (call $at (local.get $body) (local.get $len) (local.get $i) (i32.const 4) (i32.const 4)))
                  (call $run (local.get $body) (local.get $len)
                             (i32.add (local.get $i) (i32.const 4)) (i32.const 0) (i32.const 16)))
              (then (return (call $refuse (i32.const 128) (i32.const 48)))))))
        ;; -----BEGIN …PRIVATE KEY----- within 40 bytes
        (if (i32.eq (local.get $c) (i32.const 45))
          (then
            (if (call $at (local.get $body) (local.get $len) (local.get $i) (i32.const 8) (i32.const 11))
              (then
                (local.set $j (i32.add (local.get $i) (i32.const 11)))
                (block $key_done
                  (loop $key_next
                    (br_if $key_done
                      (i32.gt_u (local.get $j) (i32.add (local.get $i) (i32.const 51))))
                    (if (call $at (local.get $body) (local.get $len) (local.get $j)
                                  (i32.const 24) (i32.const 16))
                      (then (return (call $refuse (i32.const 192) (i32.const 45)))))
                    (local.set $j (i32.add (local.get $j) (i32.const 1)))
                    (br $key_next)))))))
        ;; gh[pousr]_ and 36 of [A-Za-z0-9_], or github_pat_ and 22
        (if (i32.eq (local.get $c) (i32.const 103))
          (then
            (if (i32.and
                  (i32.and
                    (i32.eq (call $byte (local.get $body) (local.get $len)
                                        (i32.add (local.get $i) (i32.const 1)))
                            (i32.const 104))
                    (call $one_of (call $byte (local.get $body) (local.get $len)
                                              (i32.add (local.get $i) (i32.const 2)))
                                  (i32.const 56) (i32.const 5)))
                  (i32.and
                    (i32.eq (call $byte (local.get $body) (local.get $len)
                                        (i32.add (local.get $i) (i32.const 3)))
                            (i32.const 95))
                    (call $run (local.get $body) (local.get $len)
                               (i32.add (local.get $i) (i32.const 4)) (i32.const 1) (i32.const 36))))
              (then (return (call $refuse (i32.const 256) (i32.const 42)))))
            (if (i32.and
                  (call $at (local.get $body) (local.get $len) (local.get $i) (i32.const 40) (i32.const 11))
                  (call $run (local.get $body) (local.get $len)
                             (i32.add (local.get $i) (i32.const 11)) (i32.const 1) (i32.const 22)))
              (then (return (call $refuse (i32.const 256) (i32.const 42)))))))
        ;; xox[baprs]- and 10 of [A-Za-z0-9-]
        (if (i32.eq (local.get $c) (i32.const 120))
          (then
            (if (i32.and
                  (i32.and
                    (i32.and
                      (i32.eq (call $byte (local.get $body) (local.get $len)
                                          (i32.add (local.get $i) (i32.const 1)))
                              (i32.const 111))
                      (i32.eq (call $byte (local.get $body) (local.get $len)
                                          (i32.add (local.get $i) (i32.const 2)))
                              (i32.const 120)))
                    (call $one_of (call $byte (local.get $body) (local.get $len)
                                              (i32.add (local.get $i) (i32.const 3)))
                                  (i32.const 64) (i32.const 5)))
                  (i32.and
                    (i32.eq (call $byte (local.get $body) (local.get $len)
                                        (i32.add (local.get $i) (i32.const 4)))
                            (i32.const 45))
                    (call $run (local.get $body) (local.get $len)
                               (i32.add (local.get $i) (i32.const 5)) (i32.const 2) (i32.const 10))))
              (then (return (call $refuse (i32.const 320) (i32.const 41)))))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (i32.const 0)))
