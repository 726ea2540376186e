; Seed 004 fig. 11, second combination: indirect addressing in ONE
; instruction. Phase 0 loads the address register from D.w (here R3.w, e.g.
; an array index), phase 1 reads the global buffer at C[A0 + 4]: the ADDR
; result is forwarded to the MEM op of the same instruction.
;   R1 = uniform_array[int(R3.w)]   (uniform_array starts at C4)
    ADDR A0, R3.w | LDC R1, C[A0+4]
    BRC.END
