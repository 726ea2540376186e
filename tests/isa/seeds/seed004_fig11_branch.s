; Seed 004 fig. 11, first combination: a dynamic branch in ONE instruction.
; Phase 0 computes the predicate (PRED), phase 1 branches on it (BRC): the
; PRED result is forwarded to phase 1 of the same instruction.
;   if (R1.x < R2.x) R3 = R4; else R3 = R5;
    PRED.LT P0, R1.x, R2.x | BRC.JMP else if !P0
    MOV R3, R4
    BRC.JMP endif
else:
    MOV R3, R5
endif:
    BRC.END
