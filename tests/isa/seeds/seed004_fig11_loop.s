; Seed 004 fig. 11, fourth combination: for (i = 0; i < 100; i++) body;
; The loop step -- increment the counter, compare, branch back -- is ONE
; instruction: PRED with ++LC (phase 0) and BRC (phase 1). The trip count is
; known to be >= 1, so the loop is bottom-tested.
    ADDR LC, #0
loop:
    ADD R1, R1, C0                              ; body: R1 += C0
    PRED.ILT P0, ++LC, #100 | BRC.JMP loop if P0 ; i++; if (i < 100) goto loop
    BRC.END
